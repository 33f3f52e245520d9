package io.hedgerow.loadgen.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Reads the {@code "error":"code"} of an error body (the root's {@code {"error", "detail"}}) without
 * parsing the JSON, so a report can say which 503s were refusals, blocklisted queries or
 * unavailable partitions. Only error answers are read.
 */
final class ErrorCode {
    private static final ByteBuf ERROR = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("\"error\":\"", StandardCharsets.US_ASCII));
    /** Longer than any code the root uses. */
    private static final int MAX_CODE_CHARS = 40;

    private ErrorCode() {
    }

    /** The code, e.g. {@code unavailable}, or null when the body has none. */
    static String of(ByteBuf body) {
        int at = ByteBufUtil.indexOf(ERROR, body);
        if (at < 0) {
            return null;
        }
        int start = at + ERROR.readableBytes();
        int end = start;
        int limit = Math.min(body.writerIndex(), start + MAX_CODE_CHARS);
        while (end < limit && isCodeChar(body.getByte(end))) {
            end++;
        }
        return end == start || end == limit || body.getByte(end) != '"' ? null
                : body.toString(start, end - start, StandardCharsets.US_ASCII);
    }

    private static boolean isCodeChar(byte b) {
        return (b >= 'a' && b <= 'z') || b == '_' || (b >= '0' && b <= '9');
    }
}
