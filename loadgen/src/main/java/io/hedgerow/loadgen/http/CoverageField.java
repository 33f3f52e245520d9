package io.hedgerow.loadgen.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Reads {@code "docs_fraction":F} out of a search response body without parsing the JSON: the
 * root writes it once, in the result's {@code coverage} object, before the hits (whose stored
 * fields are text that could hold anything, so only the first occurrence counts). The generator
 * reads it only for tainted answers, to report how much of the corpus a good-enough result covered.
 */
final class CoverageField {
    private static final ByteBuf DOCS_FRACTION = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("\"docs_fraction\":", StandardCharsets.US_ASCII));
    /** Longer than any number the root writes (six decimals). */
    private static final int MAX_NUMBER_CHARS = 32;

    private CoverageField() {
    }

    /** The body's document fraction (0..1), or NaN when it has none or it is not a number in 0..1. */
    static double docsFraction(ByteBuf body) {
        int at = ByteBufUtil.indexOf(DOCS_FRACTION, body);
        if (at < 0) {
            return Double.NaN;
        }
        int start = at + DOCS_FRACTION.readableBytes();
        int end = start;
        int limit = Math.min(body.writerIndex(), start + MAX_NUMBER_CHARS);
        while (end < limit && isNumberChar(body.getByte(end))) {
            end++;
        }
        if (end == start) {
            return Double.NaN;
        }
        try {
            double fraction = Double.parseDouble(body.toString(start, end - start, StandardCharsets.US_ASCII));
            return fraction >= 0 && fraction <= 1 ? fraction : Double.NaN;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static boolean isNumberChar(byte b) {
        return (b >= '0' && b <= '9') || b == '.' || b == '-' || b == '+' || b == 'e' || b == 'E';
    }
}
