package io.hedgerow.root.sim;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.time.Duration;
import java.util.stream.IntStream;

/** The simulated root's settings: a root's own {@link ClusterConfig} for the config's policies. */
final class SimRootConfig {
    private SimRootConfig() {
    }

    static ClusterConfig of(SimConfig config) {
        HedgeMode mode = config.policies.contains(SimPolicy.HEDGED) ? HedgeMode.HEDGED
                : config.policies.contains(SimPolicy.TIED) ? HedgeMode.TIED : HedgeMode.OFF;
        HedgeSettings hedge = HedgeSettings.defaults().withDefaultMode(mode).withPercentile(config.hedgePercentile);
        if (config.hedgeAfterNanos > 0) {
            hedge = hedge.withFixedDelay(Duration.ofNanos(config.hedgeAfterNanos));
        }
        if (config.budget < 0) {
            hedge = hedge.withBudgetRatio(1.0).withBudgetMinPerSecond(1e9); // a backup for every copy: no budget
        } else if (!Double.isNaN(config.budget)) {
            hedge = hedge.withBudgetRatio(config.budget);
        }
        TailSettings tail = TailSettings.defaults()
                .withCanaries(config.policies.contains(SimPolicy.CANARY) ? 1 : 0)
                .withSkipKnownSafe(false) // every search here has the same text: known safe after the first
                .withMinCoverage(config.policies.contains(SimPolicy.GOOD_ENOUGH) ? config.minCoverage : 1.0)
                .withCache(Duration.ofSeconds(1), 0, 1); // no entries: off
        Duration timeout = Duration.ofNanos(config.timeoutNanos);
        return new ClusterConfig("sim", IntStream.range(0, config.leaves).mapToObj(i -> "leaf" + i + ":7000").toList(),
                config.partitions, config.replicas, timeout, timeout, 1, WireCodec.DEFAULT_MAX_FRAME_BYTES, hedge, tail,
                null, BatchAdmissionSettings.defaults(), null, config.adaptation, // every simulated search is
                config.placement, null, false); // interactive: admission never holds one back
    }
}
