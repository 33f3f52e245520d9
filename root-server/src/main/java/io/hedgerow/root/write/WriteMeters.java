package io.hedgerow.root.write;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The write path's meters on {@code /metrics}: writes by outcome, catch-ups, the time of a batch
 * (from its send to the primary to the last in-sync replica's answer: what a write waits for besides
 * its queue), snapshot restores and the rebuilds leaves refused (by reason), and each partition's
 * in-sync replicas.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (Micrometer's meters are).
 */
final class WriteMeters {
    private static final Duration[] BATCH_BUCKETS = {
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5)};

    private final MeterRegistry registry;
    private final Counter acknowledged;
    private final Counter refused;
    private final Counter failed;
    private final Counter caughtUp;
    private final Counter catchUpsFailed;
    private final Counter restored;
    private final Timer batches;
    private final Map<RebuildRefusal, Counter> rebuildRefusals = new EnumMap<>(RebuildRefusal.class);

    /** Why a replica's leaf refused to replace its copy with a snapshot ({@code REBUILD_REFUSED}). */
    enum RebuildRefusal {
        /** The copy was fed between this root's decision and the RESTORE's arrival: asked again after a backoff. */
        FED_SINCE_DECISION,
        /** The copy took writes while it pulled (a primary feeds it): asked again after a backoff. */
        FED_DURING_PULL,
        /** The leaf is the primary of this term or a newer one (this root's view is stale): not asked again in it. */
        NEWER_TERM,
        /** An older leaf, which gives no reason: asked again after a backoff. */
        UNSPECIFIED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    WriteMeters(MeterRegistry registry) {
        this.registry = registry;
        acknowledged = outcome("acknowledged", "on the disk of every in-sync replica");
        refused = outcome("refused", "answered without writing: a bad document, a version conflict, nothing to delete");
        failed = outcome("failed", "not acknowledged: no replica in sync, too many queued, or the root stopping");
        caughtUp = Counter.builder("hedgerow.write.catchups").tag("result", "completed")
                .description("Out-of-sync replicas caught up from the primary's log (back in the in-sync set)")
                .register(registry);
        catchUpsFailed = Counter.builder("hedgerow.write.catchups").tag("result", "failed")
                .description("Attempts to catch up an out-of-sync replica that failed (retried every second)")
                .register(registry);
        restored = Counter.builder("hedgerow.write.snapshot.restores")
                .description("Replicas too far behind the primary's log (a new copy, among others) restarted from a"
                        + " snapshot of the primary's copy, before its log above the snapshot")
                .register(registry);
        for (RebuildRefusal reason : RebuildRefusal.values()) {
            rebuildRefusals.put(reason, Counter.builder("hedgerow.write.rebuilds.refused").tag("reason", reason.label())
                    .description("Rebuilds of a replica from a snapshot its leaf refused, by reason:"
                            + " fed_since_decision, fed_during_pull and unspecified (an older leaf) are asked"
                            + " again after a backoff (1 s doubling to 1 min), newer_term not in that term")
                    .register(registry));
        }
        batches = Timer.builder("hedgerow.write.batch.latency")
                .description("From sending a batch of writes to the primary to every in-sync replica having it on disk")
                .serviceLevelObjectives(BATCH_BUCKETS).register(registry);
    }

    private Counter outcome(String outcome, String what) {
        return Counter.builder("hedgerow.writes").tag("outcome", outcome)
                .description("Document writes answered, by outcome; " + outcome + ": " + what).register(registry);
    }

    void rebuildRefused(RebuildRefusal reason) {
        rebuildRefusals.get(reason).increment();
    }

    void snapshotRestored() {
        restored.increment();
    }

    /** The in-sync replicas of a partition, read at each scrape. */
    void watch(int partition, ReplicaSet replicas) {
        Gauge.builder("hedgerow.write.replicas.in.sync", replicas, ReplicaSet::inSyncCount)
                .description("Replicas of the partition that hold every acknowledged write")
                .tag("partition", Integer.toString(partition)).register(registry);
    }

    void answered(DocumentResult.Outcome outcome) {
        switch (outcome) {
            case CREATED, UPDATED, DELETED -> acknowledged.increment();
            case UNAVAILABLE, OVERLOADED -> failed.increment();
            default -> refused.increment();
        }
    }

    void batch(long nanos) {
        batches.record(nanos, TimeUnit.NANOSECONDS);
    }

    void catchUp(boolean completed) {
        (completed ? caughtUp : catchUpsFailed).increment();
    }
}
