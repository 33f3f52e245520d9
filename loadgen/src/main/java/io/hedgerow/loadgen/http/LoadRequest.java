package io.hedgerow.loadgen.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * One request the load generator can send, built once before a run and sent many times: a {@code
 * GET} of a path and query string, or a {@code POST} of a JSON body to a path. The body is an
 * unreleasable buffer, so each send hands the encoder a {@link ByteBuf#duplicate() duplicate} of it
 * (its own indexes, the same bytes) and nothing is copied or freed per request.
 *
 * @param uri  the path and query string, such as {@code /search?q=parliament} or {@code /search}
 * @param body the JSON body of a POST (unreleasable); null for a GET
 */
public record LoadRequest(String uri, ByteBuf body) {
    public LoadRequest {
        if (uri == null || !uri.startsWith("/")) {
            throw new IllegalArgumentException("uri: '" + uri + "' (expected: a path starting with /)");
        }
    }

    /** {@code GET uri}. */
    public static LoadRequest get(String uri) {
        return new LoadRequest(uri, null);
    }

    /** {@code POST uri} with {@code json} as its body ({@code Content-Type: application/json}). */
    public static LoadRequest postJson(String uri, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        // Direct: a socket writes it without a copy into a direct buffer first, on every send.
        return new LoadRequest(uri, Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes)));
    }

    public boolean isPost() {
        return body != null;
    }

    /** The body as text; null for a GET. For tests and reports, not for the send path. */
    public String bodyText() {
        return body == null ? null : body.toString(body.readerIndex(), body.readableBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return body == null ? "GET " + uri : "POST " + uri + " " + bodyText();
    }
}
