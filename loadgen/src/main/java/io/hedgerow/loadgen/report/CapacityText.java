package io.hedgerow.loadgen.report;

import java.util.Locale;

/** A capacity search's result in words, for the terminal and {@code report.txt}. */
public final class CapacityText {
    private CapacityText() {
    }

    public static String describe(Capacity capacity) {
        return switch (capacity.status()) {
            case CONFIRMED -> String.format(Locale.ROOT, "%.0f req/s (%s; confirmed by a rerun). %s",
                    capacity.ratePerSecond(), capacity.limits(), capacity.detail());
            case NOT_REACHED -> String.format(Locale.ROOT, "not reached: every step passed up to the ceiling of %.0f req/s"
                    + " (%s); raise --max-rate. %s", capacity.ratePerSecond(), capacity.limits(), capacity.detail());
            case NOT_FOUND -> String.format(Locale.ROOT, "not found: no rate stayed within %s. %s", capacity.limits(),
                    capacity.detail());
        };
    }
}
