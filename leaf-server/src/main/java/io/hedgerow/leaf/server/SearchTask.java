package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.search.Query;

/**
 * One sub-request at the leaf, from arrival to answer. It is also the search's
 * {@link QueryTimeout}: a cancel or a passed deadline stops a running search at its next check.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #run()} runs once, on a worker.
 * {@link #cancel()} may be called from any thread at any time; a task cancelled before it runs
 * does no search and sends nothing (whoever cancelled it stopped waiting).
 */
final class SearchTask implements Runnable, QueryTimeout {
    private final SearchRequest request;
    private final OutboundBatcher replyTo;
    private final LeafContext leaf;
    private final long receivedNanos;
    /** Absolute deadline on the leaf's ticker; meaningful only when {@link #hasDeadline}. */
    private final long deadlineNanos;
    private final boolean hasDeadline;
    private volatile boolean cancelled;

    SearchTask(SearchRequest request, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        this.request = request;
        this.replyTo = replyTo;
        this.leaf = leaf;
        this.receivedNanos = receivedNanos;
        this.hasDeadline = request.getBudgetNanos() > 0;
        this.deadlineNanos = receivedNanos + request.getBudgetNanos();
    }

    long requestId() {
        return request.getRequestId();
    }

    OutboundBatcher replyTo() {
        return replyTo;
    }

    void cancel() {
        cancelled = true;
    }

    @Override
    public boolean shouldExit() {
        return cancelled || (hasDeadline && leaf.ticker().nanoTime() - deadlineNanos >= 0);
    }

    @Override
    public void run() {
        try {
            if (cancelled) {
                return;
            }
            Ticker ticker = leaf.ticker();
            long startNanos = ticker.nanoTime();
            SearchResponse.Builder response = execute(startNanos);
            response.setQueueNanos(startNanos - receivedNanos)
                    .setServiceNanos(ticker.nanoTime() - startNanos);
            replyTo.send(Frame.newBuilder().setResult(response).build());
        } finally {
            leaf.inflight().remove(request.getRequestId(), this);
        }
    }

    private SearchResponse.Builder execute(long startNanos) {
        if (hasDeadline && startNanos - deadlineNanos >= 0) {
            return failure(Status.EXPIRED, "deadline passed while queued");
        }
        PartitionSearcher partition = leaf.partitions().get(request.getPartition());
        if (partition == null || !partition.tryAcquire()) {
            return failure(Status.NOT_ASSIGNED, "partition " + request.getPartition() + " is not open on this leaf");
        }
        try {
            Query query = partition.context().parsing().parse(request.getQuery());
            return partition.search(query, request, this);
        } catch (BadQueryException e) {
            return failure(Status.BAD_QUERY, e.getMessage());
        } catch (IOException | RuntimeException e) {
            return failure(Status.ERROR, e.toString());
        } finally {
            try {
                partition.release();
            } catch (IOException e) {
                System.getLogger(SearchTask.class.getName())
                        .log(System.Logger.Level.WARNING, "closing partition " + request.getPartition(), e);
            }
        }
    }

    private SearchResponse.Builder failure(Status status, String detail) {
        return response(request, status, detail);
    }

    static SearchResponse.Builder response(SearchRequest request, Status status, String detail) {
        return SearchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(request.getPartition())
                .setStatus(status)
                .setError(detail);
    }
}
