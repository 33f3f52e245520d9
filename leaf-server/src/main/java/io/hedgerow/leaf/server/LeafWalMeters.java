package io.hedgerow.leaf.server;

import io.hedgerow.leaf.write.WalMeters;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The write-ahead logs of a leaf's live copies, summed over them, as {@code hedgerow_leaf_wal_*}:
 * what was appended (records, bytes), the time of each sync (the {@code fsync} an acknowledgement
 * waits for: its tail is the writes' tail), what the logs hold now, trims, records read back at
 * opening to replay, and the I/O errors that failed a copy's log.
 *
 * <p>The sync timer has a dozen fixed buckets, as {@link LeafTimings}' have, and lives in a registry
 * of its own until {@link #bindTo} adds the leaf's exported one (so a leaf made by a test records
 * into nothing); the rest are adders read at each scrape.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the logs of several partitions call it at once
 * from the leaf's writer threads; each call is an adder's increment or a timer's record.
 */
public final class LeafWalMeters implements WalMeters {
    private static final Duration[] BUCKETS = {
            Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofSeconds(1), Duration.ofSeconds(5)};

    private final CompositeMeterRegistry timers = new CompositeMeterRegistry();
    private final Timer fsync = Timer.builder("hedgerow.leaf.wal.fsync")
            .description("Time a write-ahead log's sync took (fsync of the log, then of its checkpoint), once per"
                    + " written batch: every write of the batch waits for it before its acknowledgement")
            .serviceLevelObjectives(BUCKETS)
            .register(timers);
    final LongAdder appendedRecords = new LongAdder();
    final LongAdder appendedBytes = new LongAdder();
    final LongAdder appends = new LongAdder();
    final LongAdder heldRecords = new LongAdder();
    final LongAdder heldBytes = new LongAdder();
    final LongAdder trims = new LongAdder();
    final LongAdder trimmedRecords = new LongAdder();
    final LongAdder replayedRecords = new LongAdder();
    final LongAdder errors = new LongAdder();

    @Override
    public void appended(int records, long bytes) {
        appends.increment();
        appendedRecords.add(records);
        appendedBytes.add(bytes);
    }

    @Override
    public void synced(long nanos) {
        fsync.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void held(long records, long bytes) {
        heldRecords.add(records);
        heldBytes.add(bytes);
    }

    @Override
    public void trimmed(int records) {
        trims.increment();
        trimmedRecords.add(records);
    }

    @Override
    public void replayed(int records) {
        replayedRecords.add(records);
    }

    @Override
    public void failed() {
        errors.increment();
    }

    /** Exports the meters through {@code registry} from now on. */
    void bindTo(MeterRegistry registry) {
        timers.add(registry);
        counter(registry, "hedgerow.leaf.wal.appends", "Batches written to the end of a write-ahead log", appends);
        counter(registry, "hedgerow.leaf.wal.appended.records", "Records (write operations) appended to the"
                + " write-ahead logs", appendedRecords);
        counter(registry, "hedgerow.leaf.wal.appended.bytes", "Bytes of records appended to the write-ahead logs",
                appendedBytes);
        Gauge.builder("hedgerow.leaf.wal.records", heldRecords, LongAdder::sum)
                .description("Records the write-ahead logs of this leaf's live copies hold (synced, not yet trimmed)")
                .register(registry);
        Gauge.builder("hedgerow.leaf.wal.bytes", heldBytes, LongAdder::sum)
                .description("Bytes of records the write-ahead logs of this leaf's live copies hold (synced, not yet"
                        + " trimmed; file headers not counted)")
                .register(registry);
        counter(registry, "hedgerow.leaf.wal.trims", "Trims of a write-ahead log (records every replica holds and"
                + " a commit covers, dropped by rewriting the log)", trims);
        counter(registry, "hedgerow.leaf.wal.trimmed.records", "Records trims dropped from the write-ahead logs",
                trimmedRecords);
        counter(registry, "hedgerow.leaf.wal.replayed.records", "Records read back from the write-ahead logs when"
                + " live copies were opened (at a restart: replayed above the copy's last commit)", replayedRecords);
        counter(registry, "hedgerow.leaf.wal.errors", "I/O errors (a write, fsync, checkpoint or trim) that failed a"
                + " copy's write-ahead log: that copy takes no writes until reopened or rebuilt", errors);
    }

    private static void counter(MeterRegistry registry, String name, String description, LongAdder adder) {
        FunctionCounter.builder(name, adder, (ToDoubleFunction<LongAdder>) LongAdder::sum)
                .description(description).register(registry);
    }
}
