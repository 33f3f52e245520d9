package io.hedgerow.common.time;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Human durations such as {@code 150ms}, {@code 10s}, {@code 2m}, {@code 1h} or {@code 1.5s}, as
 * command-line flags and scenario files write them.
 */
public final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

    private Durations() {
    }

    /** @throws IllegalArgumentException naming the text and the accepted forms */
    public static Duration parse(String text) {
        Matcher matcher = text == null ? null : DURATION.matcher(text.trim());
        if (matcher == null || !matcher.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (expected e.g. 150ms, 10s, 2m, 1h)");
        }
        double amount = Double.parseDouble(matcher.group(1));
        double millis = switch (matcher.group(2)) {
            case "ms" -> amount;
            case "s" -> amount * 1000;
            case "m" -> amount * 60_000;
            default -> amount * 3_600_000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    /** The shortest exact form {@link #parse} reads back where one exists: {@code 50ms}, {@code 1.5s}, {@code 2m}. */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos % 3_600_000_000_000L == 0 && nanos > 0) {
            return nanos / 3_600_000_000_000L + "h";
        }
        if (nanos % 60_000_000_000L == 0 && nanos > 0) {
            return nanos / 60_000_000_000L + "m";
        }
        if (nanos >= 1_000_000_000L) {
            return trim(nanos / 1e9) + "s";
        }
        return trim(nanos / 1e6) + "ms";
    }

    private static String trim(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
