package io.hedgerow.leaf.index;

import java.nio.charset.StandardCharsets;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;

/**
 * Maps a document to its micro-partition by a stable hash (MurmurHash3 x86-32 of UTF-8 bytes, seed
 * 0), so the same document lands in the same partition on every run and every machine: by its id,
 * or, in an index with a {@link Routing} key, within its key's partitions by its id.
 *
 * @param partitions the index's partition count
 * @param routing    the index's routing key, or null
 */
public record Partitioner(int partitions, Routing routing) {
    /** The most partitions an index may have; {@link PartitionStore} numbers them with four digits. */
    public static final int MAX_PARTITIONS = 10_000;

    public Partitioner {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1.." + MAX_PARTITIONS + ")");
        }
        if (routing != null && routing.partitions() > partitions) {
            throw new IllegalArgumentException("routing: " + routing.partitions() + " partitions per key (expected: at most"
                    + " the index's " + partitions + ")");
        }
    }

    /** Without a routing key: by id alone. */
    public Partitioner(int partitions) {
        this(partitions, null);
    }

    /** The partitioner of an index as its manifest describes it. */
    public static Partitioner of(IndexManifest manifest) {
        return new Partitioner(manifest.partitions(), manifest.config().routing());
    }

    /** The partition of a document with {@code id} in an index without a routing key. */
    public int partitionOf(String id) {
        if (routing != null) {
            throw new IllegalStateException("the index is routed by '" + routing.field() + "': a document's partition"
                    + " needs its routing value");
        }
        return Math.floorMod(hash(id), partitions);
    }

    /**
     * The partition of a document: within the partitions of {@code key} by its id when the index is
     * routed, by its id alone otherwise ({@code key} is then ignored).
     *
     * @throws IllegalArgumentException when the index is routed and {@code key} is null
     */
    public int partitionOf(String id, String key) {
        if (routing == null) {
            return partitionOf(id);
        }
        return (firstOf(requireKey(key)) + Math.floorMod(hash(id), routing.partitions())) % partitions;
    }

    /** The partitions that may hold documents with routing value {@code key}, in order. */
    public int[] partitionsOf(String key) {
        if (routing == null) {
            throw new IllegalStateException("the index has no routing key");
        }
        int first = firstOf(requireKey(key));
        int[] targets = new int[routing.partitions()];
        for (int i = 0; i < targets.length; i++) {
            targets[i] = (first + i) % partitions;
        }
        return targets;
    }

    private String requireKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("missing the routing value (the index is routed by field '"
                    + routing.field() + "': a document needs that field, a read or a delete by id ?routing=VALUE)");
        }
        return key;
    }

    private int firstOf(String key) {
        return Math.floorMod(hash(key), partitions);
    }

    private static int hash(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return StringHelper.murmurhash3_x86_32(new BytesRef(bytes), 0);
    }
}
