package io.hedgerow.root.sim;

import java.util.Locale;

/** Durations as the simulator's options write them: {@code 250us}, {@code 2ms}, {@code 1.5s}, {@code 0}. */
final class SimDurations {
    private SimDurations() {
    }

    /** Nanoseconds of {@code 250us}, {@code 2ms}, {@code 0.5ms}, {@code 1s} or {@code 0}. */
    static long parseNanos(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (value.equals("0")) {
                return 0;
            }
            if (value.endsWith("ns")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 2)));
            }
            if (value.endsWith("us")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 2)) * 1e3);
            }
            if (value.endsWith("ms")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 2)) * 1e6);
            }
            if (value.endsWith("s")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1e9);
            }
        } catch (NumberFormatException e) {
            // the message below says what is accepted
        }
        throw new IllegalArgumentException("duration: '" + text + "' (expected: a number with ns, us, ms or s, such as"
                + " 2ms or 0.5s)");
    }

    /** {@code 2ms}, {@code 250us}, {@code 1.5s}: the shortest exact-enough form. */
    static String format(long nanos) {
        if (nanos == 0) {
            return "0";
        }
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos >= 1_000_000 && nanos % 1_000 == 0) {
            return trim(nanos / 1e6) + "ms";
        }
        if (nanos >= 1_000) {
            return trim(nanos / 1e3) + "us";
        }
        return nanos + "ns";
    }

    private static String trim(double value) {
        String text = String.format(Locale.ROOT, "%.3f", value);
        return text.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
}
