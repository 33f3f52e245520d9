package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A leaf without sockets for tests that run a search or fetch task against a real partition:
 * partition 0 of an index open, one search worker, a manual ticker for deadlines and queueing, no
 * fault injection, and the answers written to an embedded channel ({@link #onlyAnswer}). Close it
 * after each test.
 */
final class OnePartitionLeaf implements AutoCloseable {
    final ManualTicker ticker = new ManualTicker();
    final LeafCounters counters = new LeafCounters();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    /** Where the tasks answer: {@link #onlyAnswer} reads it. */
    final OutboundBatcher replies = new OutboundBatcher(channel, 1);
    private final PartitionStore store;
    private final String indexName;
    private IndexContext index;
    private OpenPartitions partitions;
    private SearchScheduler scheduler;

    /** @param store an index with a partition 0, named {@code indexName} */
    OnePartitionLeaf(PartitionStore store, String indexName) {
        this.store = store;
        this.indexName = indexName;
    }

    /** As {@link #start(SchedulingConfig, long, Ticker)}, slices measured on the worker's thread CPU time. */
    LeafContext start(SchedulingConfig scheduling, long sliceNanos) throws IOException {
        return start(scheduling, sliceNanos, ThreadCpuClock.orWallClock());
    }

    /**
     * Opens partition 0 and starts a scheduler of one search worker (and a lane's, with lanes on);
     * a leaf started before is closed first.
     *
     * @param workClock what the worker's task CPU time and slices are measured on
     */
    LeafContext start(SchedulingConfig scheduling, long sliceNanos, Ticker workClock) throws IOException {
        stop();
        index = IndexContext.of(store, store.readManifest());
        partitions = new OpenPartitions(index, PartitionWarmer.paced(Duration.ZERO));
        assertThat(partitions.assign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(indexName)
                .addPartitions(0).build()).getError()).isEmpty();
        scheduler = new SearchScheduler(1, scheduling, ticker, workClock);
        return new LeafContext(partitions, scheduler, new InflightTasks(ticker, counters, InstantSource.fixed(Instant.EPOCH)),
                ticker, new FaultControl(false, new FaultInjector(ticker, () -> 1), () -> { }), counters, null,
                sliceNanos, QueryOfDeath.NONE, null, null);
    }

    IndexContext index() {
        return index;
    }

    OpenPartitions partitions() {
        return partitions;
    }

    SearchScheduler scheduler() {
        return scheduler;
    }

    /** The one answer written since the last: fails if there is none, or more than one. */
    Frame onlyAnswer() {
        channel.runPendingTasks();
        Frame frame = channel.readOutbound();
        assertThat(frame).as("an answer").isNotNull();
        assertThat((Object) channel.readOutbound()).as("only one answer").isNull();
        return frame;
    }

    private void stop() {
        if (scheduler != null) {
            scheduler.close();
            scheduler = null;
        }
        if (partitions != null) {
            partitions.close();
            partitions = null;
        }
    }

    @Override
    public void close() {
        stop();
        channel.finishAndReleaseAll();
    }
}
