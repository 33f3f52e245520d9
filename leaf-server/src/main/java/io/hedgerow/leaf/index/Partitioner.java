package io.hedgerow.leaf.index;

import java.nio.charset.StandardCharsets;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;

/**
 * Maps a document id to its micro-partition by a stable hash (MurmurHash3 x86-32 of the id's UTF-8
 * bytes, seed 0), so the same id lands in the same partition on every run and every machine.
 */
public record Partitioner(int partitions) {
    /** The most partitions an index may have; {@link PartitionStore} numbers them with four digits. */
    public static final int MAX_PARTITIONS = 10_000;

    public Partitioner {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1.." + MAX_PARTITIONS + ")");
        }
    }

    public int partitionOf(String id) {
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        int hash = StringHelper.murmurhash3_x86_32(new BytesRef(bytes), 0);
        return Math.floorMod(hash, partitions);
    }
}
