package io.hedgerow.root.sim;

import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.fanout.DetachedRoot;
import java.util.SplittableRandom;

/**
 * What a modelled leaf answers, as the wire messages a real leaf sends, so the root's own code
 * handles them: a search's answer (its hits only in the partitions drawn to hold the search's
 * hits) and a fetch's.
 */
final class SimAnswers {
    private SimAnswers() {
    }

    /** A leaf's answer to a search copy; when OK, one hit if its partition is one of {@code hitPartitions} (best first). */
    static SearchResponse search(DetachedRoot.Copy copy, Status status, long queueNanos, long serviceNanos,
            int[] hitPartitions) {
        SearchResponse.Builder response = SearchResponse.newBuilder()
                .setRequestId(copy.requestId())
                .setPartition(copy.partition())
                .setStatus(status)
                .setTotalHitsExact(true)
                .setQueueNanos(queueNanos)
                .setServiceNanos(serviceNanos);
        if (status == Status.OK) {
            for (int rank = 0; rank < hitPartitions.length; rank++) {
                if (hitPartitions[rank] == copy.partition()) {
                    response.addHits(Hit.newBuilder().setId("p" + copy.partition()).setScore(hitPartitions.length - rank))
                            .setTotalHits(1);
                }
            }
        }
        return response.build();
    }

    /** A leaf's answer to a search a cancel stopped while it ran: OK, cut short, nothing found yet. */
    static SearchResponse cutShort(DetachedRoot.Copy copy, long queueNanos, long serviceNanos) {
        return SearchResponse.newBuilder()
                .setRequestId(copy.requestId())
                .setPartition(copy.partition())
                .setStatus(Status.OK)
                .setCutShort(true)
                .setQueueNanos(queueNanos)
                .setServiceNanos(serviceNanos)
                .build();
    }

    /** A leaf's answer to a fetch: every document it was asked for, when OK. */
    static FetchResponse fetch(FetchRequest request, Status status, long queueNanos, long serviceNanos) {
        FetchResponse.Builder response = FetchResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setStatus(status)
                .setQueueNanos(queueNanos)
                .setServiceNanos(serviceNanos);
        if (status == Status.OK) {
            for (FetchItem item : request.getItemsList()) {
                response.addDocs(FetchedDoc.newBuilder().setPartition(item.getPartition()).setDoc(item.getDoc())
                        .setId(item.getId()));
            }
        }
        return response.build();
    }

    /**
     * {@code hits} distinct partitions on average (the whole part, one more with the fraction's
     * probability) of {@code partitions}, at most {@code most} (the request's k): whose answers carry the
     * search's hits.
     */
    static int[] drawHitPartitions(double hits, int partitions, int most, SplittableRandom random) {
        int count = (int) hits + (random.nextDouble() < hits % 1 ? 1 : 0);
        count = Math.min(count, most);
        int[] chosen = new int[count];
        for (int i = 0; i < count; i++) {
            int partition;
            do {
                partition = random.nextInt(partitions);
            } while (contains(chosen, i, partition));
            chosen[i] = partition;
        }
        return chosen;
    }

    private static boolean contains(int[] values, int length, int value) {
        for (int i = 0; i < length; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }
}
