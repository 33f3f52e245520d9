package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import org.apache.lucene.search.Query;

/**
 * The query phase of one partition: top k ids and scores, and the total hit count. A tied request
 * (one with a twin on another leaf) tells the twin's leaf to drop the twin when it starts.
 */
final class SearchTask extends LeafTask {
    private final SearchRequest request;

    SearchTask(SearchRequest request, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        super(request.getRequestId(), request.getBudgetNanos(), replyTo, leaf, receivedNanos);
        this.request = request;
    }

    @Override
    void started() {
        if (request.hasTwin()) {
            leaf.peers().cancelTwin(request.getTwin().getLeafAddress(), request.getTwin().getRequestId());
        }
    }

    @Override
    int priority() {
        return request.getPriorityValue();
    }

    @Override
    Frame execute(long startNanos, long queueNanos) {
        SearchResponse.Builder response = search();
        response.setQueueNanos(queueNanos).setServiceNanos(leaf.ticker().nanoTime() - startNanos);
        return Frame.newBuilder().setResult(response).build();
    }

    private SearchResponse.Builder search() {
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
            Partitions.release(partition);
        }
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
