package io.hedgerow.cli;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.leaf.server.LeafCommand;
import io.hedgerow.root.hedge.HedgeSettings;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** The root's hedging options, shared by {@code root}, {@code local} and {@code demo}. */
final class HedgeOptions {
    @Option(names = "--hedge", paramLabel = "MODE", defaultValue = "hedged", converter = ModeConverter.class,
            description = "Default for queries that name none: off, hedged (a backup to another replica after the"
                    + " hedge delay) or tied (two copies that cancel each other) (default: ${DEFAULT-VALUE}).")
    HedgeMode mode;

    @Option(names = "--hedge-percentile", paramLabel = "P", defaultValue = "95",
            description = "The adaptive hedge delay is this percentile of recent sub-request latency"
                    + " (default: ${DEFAULT-VALUE}).")
    double percentile;

    @Option(names = "--hedge-after", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "A fixed hedge delay instead of the adaptive one, e.g. 10ms.")
    Duration fixedDelay;

    @Option(names = "--hedge-min-delay", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "Lower bound of the adaptive hedge delay (default: 1ms).")
    Duration minDelay;

    @Option(names = "--hedge-max-delay", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "Upper bound of the adaptive hedge delay (default: 100ms).")
    Duration maxDelay;

    @Option(names = "--hedge-budget", paramLabel = "FRACTION", defaultValue = "0.1",
            description = "Backups may be at most this fraction of primary sub-requests over the budget window"
                    + " (default: ${DEFAULT-VALUE}).")
    double budgetRatio;

    @Option(names = "--tied-delay", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "Delay before a tied request's second copy (default: twice the measured root-leaf round"
                    + " trip, at most 1ms).")
    Duration tiedDelay;

    HedgeSettings toSettings() {
        HedgeSettings settings = HedgeSettings.defaults()
                .withDefaultMode(mode)
                .withPercentile(percentile)
                .withBudgetRatio(budgetRatio);
        if (fixedDelay != null) {
            settings = settings.withFixedDelay(fixedDelay);
        }
        if (minDelay != null) {
            settings = settings.withMinDelay(minDelay);
        }
        if (maxDelay != null) {
            settings = settings.withMaxDelay(maxDelay);
        }
        if (tiedDelay != null) {
            settings = settings.withTiedDelay(tiedDelay);
        }
        return settings;
    }

    static final class ModeConverter implements ITypeConverter<HedgeMode> {
        @Override
        public HedgeMode convert(String value) {
            return HedgeMode.parse(value);
        }
    }
}
