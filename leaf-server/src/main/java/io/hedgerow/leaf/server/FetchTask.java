package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.Query;

/**
 * The fetch phase: stored fields and snippets of the hits that made the merged top k, which may
 * span several of this leaf's partitions. Each hit is named by its document id and found here by
 * it; a document this replica does not hold comes back with an empty id (the root then asks another
 * replica). All or nothing otherwise: if one partition is not open here, the root fetches from
 * another replica.
 */
final class FetchTask extends LeafTask {
    private final FetchRequest request;

    FetchTask(FetchRequest request, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        super(request.getRequestId(), request.getBudgetNanos(), replyTo, leaf, receivedNanos);
        this.request = request;
    }

    @Override
    String logRequestId() {
        return request.getLogRequestId();
    }

    @Override
    int priority() {
        return request.getPriorityValue();
    }

    @Override
    Frame execute(long startNanos, long queueNanos) {
        FetchResponse.Builder response = fetch();
        // The work clock since this task left the queue (TaskCpuTime).
        response.setQueueNanos(queueNanos).setServiceNanos(leaf.ticker().nanoTime() - startNanos)
                .setCpuNanos(leaf.scheduler().cpuTime().taskCpuNanos());
        return Frame.newBuilder().setFetchResult(response).build();
    }

    private FetchResponse.Builder fetch() {
        // Items grouped by partition, remembering each one's position in the request.
        Map<Integer, List<Integer>> positionsByPartition = new LinkedHashMap<>();
        for (int i = 0; i < request.getItemsCount(); i++) {
            positionsByPartition.computeIfAbsent(request.getItems(i).getPartition(), p -> new ArrayList<>()).add(i);
        }
        FetchedDoc[] fetched = new FetchedDoc[request.getItemsCount()];
        Query query = null;
        for (Map.Entry<Integer, List<Integer>> group : positionsByPartition.entrySet()) {
            PartitionSearcher partition = leaf.partitions().acquire(group.getKey());
            if (partition == null) {
                return failure(Status.NOT_ASSIGNED, "partition " + group.getKey() + " is not open on this leaf");
            }
            try {
                if (query == null) {
                    query = partition.context().parsing().parse(request.getQuery(), request.getLang());
                }
                List<Integer> positions = group.getValue();
                int[] docs = docsOf(partition, positions);
                List<FetchedDoc.Builder> docsFetched = partition.fetch(query, docs, request.getSnippets(),
                        request.getStoredFields(), request.getChooseFields() ? request.getFieldsList() : null,
                        request.hasHighlight() ? request.getHighlight() : null);
                for (int j = 0; j < positions.size(); j++) {
                    fetched[positions.get(j)] = docsFetched.get(j).build();
                }
            } catch (BadQueryException e) {
                return failure(Status.BAD_QUERY, e.getMessage());
            } catch (IOException | RuntimeException e) {
                return failure(Status.ERROR, e.toString());
            } finally {
                Partitions.release(partition);
            }
            if (shouldExit()) {
                // A fetch has no partial answer: all its documents or nothing.
                return stopRequested() ? failure(Status.CANCELLED, "cancelled while fetching")
                        : failure(Status.EXPIRED, "deadline passed while fetching");
            }
        }
        FetchResponse.Builder response = FetchResponse.newBuilder().setRequestId(request.getRequestId()).setStatus(Status.OK);
        for (FetchedDoc doc : fetched) {
            response.addDocs(doc);
        }
        return response;
    }

    /**
     * The documents of the items at {@code positions}: found by their id (a term lookup on the id
     * field, so any replica finds the right document whatever its Lucene doc numbers); an item
     * without an id (an older root) names its doc number. -1 for an id the partition does not hold.
     */
    private int[] docsOf(PartitionSearcher partition, List<Integer> positions) throws IOException {
        String[] ids = new String[positions.size()];
        int[] docs = new int[positions.size()];
        boolean byId = false;
        for (int j = 0; j < ids.length; j++) {
            FetchItem item = request.getItems(positions.get(j));
            docs[j] = item.getDoc();
            if (!item.getId().isEmpty()) {
                ids[j] = item.getId();
                byId = true;
            }
        }
        if (!byId) {
            return docs;
        }
        int[] found = partition.docsOf(ids);
        for (int j = 0; j < ids.length; j++) {
            if (ids[j] != null) {
                docs[j] = found[j];
            }
        }
        return docs;
    }

    @Override
    Frame refusal(Status status, String detail) {
        return Frame.newBuilder().setFetchResult(failure(status, detail)).build();
    }

    private FetchResponse.Builder failure(Status status, String detail) {
        return FetchResponse.newBuilder().setRequestId(request.getRequestId()).setStatus(status).setError(detail);
    }
}
