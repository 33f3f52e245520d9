package io.hedgerow.loadgen;

import io.hedgerow.loadgen.run.CapacitySearch;
import picocli.CommandLine.Option;

/** The load generator's capacity search ({@code --find-capacity}) and its limits and steps. */
final class CapacityFlags {
    @Option(names = "--find-capacity",
            description = "Step the rate up (x1.5 per step, then bisect) until a step breaks a limit (p99, error rate, a drop,"
                    + " the generator's own lag), rerun the best rate to confirm it, and report it as the capacity (or"
                    + " 'not reached' when every step up to --max-rate passed).")
    boolean enabled;

    @Option(names = "--max-p99-ms", defaultValue = "20", description = "Capacity limit on p99 latency (default: ${DEFAULT-VALUE}).")
    double maxP99Millis;

    @Option(names = "--max-error-rate", defaultValue = "0.01",
            description = "Capacity limit on the error rate, 0..1 (default: ${DEFAULT-VALUE}).")
    double maxErrorRate;

    @Option(names = "--start-rate", defaultValue = "200", description = "First capacity step (default: ${DEFAULT-VALUE}).")
    double startRate;

    @Option(names = "--max-rate", defaultValue = "50000", description = "Highest capacity step (default: ${DEFAULT-VALUE}).")
    double maxRate;

    @Option(names = "--step", defaultValue = "15s", description = "Length of each capacity step (default: ${DEFAULT-VALUE}).")
    String step;

    @Option(names = "--cool-down", defaultValue = "5s", paramLabel = "DURATION",
            description = "Idle time before each capacity step, so a step does not inherit the last one's backlog"
                    + " (default: ${DEFAULT-VALUE}).")
    String coolDown;

    @Option(names = "--confirm-duration", defaultValue = "30s", paramLabel = "DURATION",
            description = "Length of the rerun that confirms the rate a capacity search settles on (default: ${DEFAULT-VALUE}).")
    String confirmDuration;

    /** A search from these options: steps x1.5 from the start rate, four bisections, confirmed once. */
    CapacitySearch newSearch() {
        return new CapacitySearch(startRate, 1.5, maxP99Millis, maxErrorRate, 4, maxRate, 3);
    }
}
