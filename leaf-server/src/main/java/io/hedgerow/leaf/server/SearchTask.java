package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.SlicedSearch;
import java.io.IOException;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;

/**
 * The query phase of one partition: top k ids and scores, and the total hit count. A tied request
 * (one with a twin on another leaf) tells the twin's leaf to drop the twin when it starts.
 *
 * <p>When the leaf slices searches ({@code --slice}), the search runs a budget at a time and, when
 * a slice ends while other work of its class or a higher one waits, yields: its continuation goes
 * to the back of its class's queue (see {@link LeafTask}). A cheap query ends in its first slice.
 */
final class SearchTask extends LeafTask {
    private final SearchRequest request;
    // Set by execute, read by the slices after it; each hand-over to another worker goes through the
    // scheduler's lock, which orders these writes before the reads.
    private long startNanos;
    private long queueNanos;
    /** The search in slices, and the partition whose reader it holds; null unless sliced. */
    private SlicedSearch<TopScoreDocCollector, TopDocs> sliced;
    private PartitionSearcher partition;

    SearchTask(SearchRequest request, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        super(request.getRequestId(), request.getBudgetNanos(), replyTo, leaf, receivedNanos);
        this.request = request;
    }

    @Override
    void started() {
        if (request.hasTwin()) {
            leaf.peers().cancelTwin(request.getTwin().getLeafAddress(), key().rootId(), request.getTwin().getRequestId());
        }
    }

    @Override
    int priority() {
        return request.getPriorityValue();
    }

    @Override
    Frame execute(long startNanos, long queueNanos) {
        this.startNanos = startNanos;
        this.queueNanos = queueNanos;
        if (leaf.sliceNanos() > 0) {
            return startSliced();
        }
        return answer(search());
    }

    private Frame answer(SearchResponse.Builder response) {
        response.setQueueNanos(queueNanos).setServiceNanos(leaf.ticker().nanoTime() - startNanos);
        return Frame.newBuilder().setResult(response).build();
    }

    private SearchResponse.Builder search() {
        PartitionSearcher partition = leaf.partitions().get(request.getPartition());
        if (partition == null || !partition.tryAcquire()) {
            return notAssigned();
        }
        try {
            Query query = partition.context().parsing().parse(request.getQuery());
            return partition.search(query, request, this);
        } catch (BadQueryException e) {
            return failure(Status.BAD_QUERY, e.getMessage());
        } catch (IOException | RuntimeException e) {
            return failure(Status.ERROR, e.toString());
        } finally {
            Partitions.release(partition);
        }
    }

    /** Prepares the sliced search, holding the partition's reader until its last slice, and runs the first. */
    private Frame startSliced() {
        PartitionSearcher partition = leaf.partitions().get(request.getPartition());
        if (partition == null || !partition.tryAcquire()) {
            return answer(notAssigned());
        }
        try {
            Query query = partition.context().parsing().parse(request.getQuery());
            sliced = partition.startSliced(query, request, this, leaf.ticker());
        } catch (BadQueryException e) {
            Partitions.release(partition);
            return answer(failure(Status.BAD_QUERY, e.getMessage()));
        } catch (IOException | RuntimeException e) {
            Partitions.release(partition);
            return answer(failure(Status.ERROR, e.toString()));
        }
        this.partition = partition;
        return proceed();
    }

    /**
     * Runs slices until the search ends, or until a slice ends while work of this class or a
     * higher one waits: then the rest goes back in the queue behind that work.
     */
    @Override
    Frame proceed() {
        boolean yielded = false;
        try {
            while (sliced.step(leaf.sliceNanos())) {
                if (leaf.scheduler().hasWaitingAtOrAbove(priority())) {
                    leaf.counters().slicesYielded.increment();
                    // Counted before the hand-over: after it, this thread must touch nothing of the task.
                    yielded = yieldWorker();
                    if (yielded) {
                        return null;
                    }
                    // Closed: no worker would take the rest, so finish here.
                }
            }
            return answer(partition.response(request, sliced.result(), sliced.cutShort()));
        } catch (IOException | RuntimeException e) {
            return answer(failure(Status.ERROR, e.toString()));
        } finally {
            if (!yielded) {
                Partitions.release(partition);
            }
        }
    }

    @Override
    void parkedDropped() {
        Partitions.release(partition);
    }

    private SearchResponse.Builder notAssigned() {
        return failure(Status.NOT_ASSIGNED, "partition " + request.getPartition() + " is not open on this leaf");
    }

    @Override
    Frame refusal(Status status, String detail) {
        return Frame.newBuilder().setResult(failure(status, detail)).build();
    }

    private SearchResponse.Builder failure(Status status, String detail) {
        return SearchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(request.getPartition())
                .setStatus(status)
                .setError(detail);
    }
}
