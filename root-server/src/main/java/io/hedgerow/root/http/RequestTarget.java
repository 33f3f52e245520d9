package io.hedgerow.root.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The request target (path and query string) as its client wrote it, in UTF-8.
 *
 * <p>Netty reads the request line byte by byte as ISO-8859-1, so a target with raw UTF-8 in it, as
 * {@code curl 'localhost:8080/search?q=élections'} sends, arrives as {@code Ã©lections}, and the
 * search quietly finds nothing. Browsers and HTTP libraries percent-encode such text, which stays
 * ASCII and is decoded as UTF-8 by {@link io.netty.handler.codec.http.QueryStringDecoder}; raw
 * bytes are decoded here the same way. Bytes that are not UTF-8 are left as they came.
 */
final class RequestTarget {
    private RequestTarget() {
    }

    /** {@code uri} with its non-ASCII characters (bytes read as ISO-8859-1) read again as UTF-8. */
    static String utf8(String uri) {
        boolean ascii = true;
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c > 0xFF) {
                return uri; // not bytes read as ISO-8859-1: nothing to undo
            }
            ascii &= c < 0x80;
        }
        if (ascii) {
            return uri;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(uri.getBytes(StandardCharsets.ISO_8859_1)))
                    .toString();
        } catch (CharacterCodingException e) {
            return uri;
        }
    }
}
