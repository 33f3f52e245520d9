package io.hedgerow.loadgen.scenario;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses human durations such as {@code 150ms}, {@code 10s}, {@code 2m} or {@code 1.5s}. */
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
}
