package io.hedgerow.cli;

import io.hedgerow.root.adapt.AdaptationSettings;
import picocli.CommandLine.Option;

/** The root's adaptation across requests, shared by {@code root}, {@code local} and {@code demo}: all on by default. */
final class AdaptOptions {
    @Option(names = "--no-latency-aware-choice",
            description = "Choose replicas by fewest outstanding sub-requests instead of C3's rank (response and service"
                    + " time EWMAs, the queue the leaves report, cubed; the better of two random replicas when there are"
                    + " more). Default: C3.")
    boolean noLatencyAwareChoice;

    @Option(names = "--no-stall-detection",
            description = "Keep choosing a leaf that owes answers and has been silent for 8 times its usual latency (at"
                    + " least 20ms), as a stopped process with open connections is. Default: avoided until it answers.")
    boolean noStallDetection;

    @Option(names = "--no-probation",
            description = "Turn off latency-induced probation: a leaf 3 times slower than the median of the others (and"
                    + " 2ms slower) for 2s leaves primary rotation (never a partition's last serving replica), gets"
                    + " sampled shadow copies at the SHADOW class, and returns after 3s of normal latency. Default: on.")
    boolean noProbation;

    @Option(names = "--shadow-fraction", paramLabel = "FRACTION", defaultValue = "0.2",
            description = "Fraction of the primaries a leaf on probation misses that send it a shadow copy, charged to the"
                    + " hedge budget (default: ${DEFAULT-VALUE}).")
    double shadowFraction;

    @Option(names = "--slow-start", paramLabel = "DURATION", defaultValue = "30s",
            converter = io.hedgerow.leaf.server.LeafCommand.DurationConverter.class,
            description = "A leaf that comes back (restarted, or reconnected) gets 10%% of the primaries it would win at"
                    + " first, growing with time to all of them after this long at best, and capped by its latency"
                    + " (its peers' over its own) until that is within 1.5 times its peers'; 0s turns it off"
                    + " (default: ${DEFAULT-VALUE}).")
    java.time.Duration slowStart;

    AdaptationSettings toSettings() {
        return AdaptationSettings.defaults()
                .withLatencyAwareChoice(!noLatencyAwareChoice)
                .withStallDetection(!noStallDetection)
                .withProbation(!noProbation)
                .withShadowFraction(shadowFraction)
                .withSlowStart(slowStart);
    }
}
