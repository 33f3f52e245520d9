package io.hedgerow.root.search;

import io.hedgerow.api.PartitionError;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The query phase of one partition of one search: its copies, which leaves failed it, its answer.
 * A leaf that failed the partition (busy, error, lost connection) is not asked again; a leaf whose
 * copy was only dropped for its tied twin stays eligible (it never ran the copy).
 */
final class PartitionSlot {
    private final int partition;
    private final List<SearchCopy> copies = new ArrayList<>(2);
    private SearchResponse answer;
    private LeafSet failedLeaves = LeafSet.EMPTY;
    private int retries;
    private int backups;
    private PartitionError failure;
    /** The last failure was a lost connection. */
    private boolean lostLast;
    private boolean gaveUp;
    private boolean canary;
    /** Tied mode: the twin the first copy names, until it is sent or given up. */
    private TwinPlan twin;

    /** A tied twin chosen when the first copy went out: its leaf and request id. */
    record TwinPlan(int leaf, long requestId, long firstRequestId, int firstLeaf) {
    }

    PartitionSlot(int partition) {
        this.partition = partition;
    }

    int partition() {
        return partition;
    }

    List<SearchCopy> copies() {
        return copies;
    }

    /** No copy was ever sent. */
    boolean unsent() {
        return copies.isEmpty() && !gaveUp;
    }

    boolean answered() {
        return answer != null;
    }

    /** Answered, or given up as unanswerable. */
    boolean settled() {
        return answer != null || gaveUp;
    }

    boolean gaveUp() {
        return gaveUp;
    }

    SearchResponse answer() {
        return answer;
    }

    /** True when its answer stopped early (the leaf's deadline or a cancel): hits found so far only. */
    boolean cutShort() {
        return answer != null && answer.getCutShort();
    }

    /** Copies sent and not yet answered, lost or cancelled. */
    int outstanding() {
        int out = 0;
        for (SearchCopy copy : copies) {
            if (!copy.done()) {
                out++;
            }
        }
        return out;
    }

    /** Leaves a new copy may not go to: those that failed it, and those that hold a copy. */
    LeafSet excludedLeaves() {
        LeafSet excluded = failedLeaves;
        for (SearchCopy copy : copies) {
            if (!copy.done()) {
                excluded = excluded.with(copy.leaf());
            }
        }
        return excluded;
    }

    LeafSet failedLeaves() {
        return failedLeaves;
    }

    int retries() {
        return retries;
    }

    int backups() {
        return backups;
    }

    PartitionError failure() {
        return failure;
    }

    boolean canary() {
        return canary;
    }

    TwinPlan twin() {
        return twin;
    }

    void add(SearchCopy copy) {
        copies.add(copy);
    }

    void answer(SearchResponse response) {
        answer = response;
    }

    void failedOn(int leaf, PartitionError error) {
        failedLeaves = failedLeaves.with(leaf);
        failure = error;
        lostLast = false;
    }

    /** Its last copy to fail was lost with its connection: that copy did no work. */
    void lostOn(int leaf, PartitionError error) {
        failedOn(leaf, error);
        lostLast = true;
    }

    /** True when its last failure was a lost connection (a leaf gone), not an answer. */
    boolean lostLast() {
        return lostLast;
    }

    void retried() {
        retries++;
    }

    void hedged() {
        backups++;
    }

    /** No replica can answer it any more; {@code error} says why (null: its last failure does). */
    void giveUp(PartitionError error) {
        if (error != null) {
            failure = error;
        }
        gaveUp = true;
    }

    void markCanary() {
        canary = true;
    }

    void planTwin(TwinPlan plan) {
        twin = plan;
    }

    void clearTwin() {
        twin = null;
    }
}
