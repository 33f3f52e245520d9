package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.root.merge.HitMerger.MergedHit;

/**
 * The fetch phase of one merged hit: which leaves were asked for its stored fields and snippet,
 * and what came back. The hit is named by its document id, which every replica of its partition
 * resolves itself, so a replica never returns another document's fields.
 */
final class HitSlot {
    private final int position;
    private final MergedHit hit;
    private FetchedDoc doc;
    /** The leaves asked for this hit (not asked again). */
    private LeafSet triedLeaves = LeafSet.EMPTY;
    /** Copies out that fetch this hit. */
    private int out;
    private int retries;
    private int backups;
    /** Why the last copy failed it; null while none did. */
    private String failure;

    HitSlot(int position, MergedHit hit) {
        this.position = position;
        this.hit = hit;
    }

    /** Its place in the merged top k. */
    int position() {
        return position;
    }

    MergedHit hit() {
        return hit;
    }

    int partition() {
        return hit.partition();
    }

    String id() {
        return hit.hit().getId();
    }

    boolean fetched() {
        return doc != null;
    }

    FetchedDoc doc() {
        return doc;
    }

    LeafSet triedLeaves() {
        return triedLeaves;
    }

    int out() {
        return out;
    }

    int retries() {
        return retries;
    }

    int backups() {
        return backups;
    }

    String failure() {
        return failure;
    }

    void sent(int leaf) {
        triedLeaves = triedLeaves.with(leaf);
        out++;
    }

    void retried() {
        retries++;
    }

    void hedged() {
        backups++;
    }

    /** One copy that fetches it is done, whatever its answer. */
    void copyDone() {
        out--;
    }

    void fill(FetchedDoc fetched) {
        doc = fetched;
    }

    void failed(String reason) {
        failure = reason;
    }
}
