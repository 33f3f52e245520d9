package io.hedgerow.leaf.index;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What an index directory holds, written as {@code index.json} next to its partition folders once
 * indexing has succeeded (its presence marks the index complete).
 *
 * @param format             version of this layout
 * @param name               index name; the root names it when assigning partitions
 * @param partitions         number of micro-partitions
 * @param config             the config documents were indexed with; leaves parse queries with it
 * @param fieldsSeen         every field the index holds besides the id, in first-seen order
 *                           (fields the config ignores are left out)
 * @param scale              how many times over the corpus was recombined into the index
 *                           ({@code --scale}); 1 for a plain corpus or an input file, and for
 *                           manifests written before the key existed
 * @param docCount           documents indexed
 * @param partitionDocCounts documents per partition, by partition number
 * @param createdAt          ISO-8601 instant the index was finished
 * @param build              the build directory under the index directory that holds the partitions
 *                           ({@code build-0003}); null for an index written before builds existed, whose
 *                           partitions are in the index directory itself
 */
public record IndexManifest(
        @JsonProperty("format") int format,
        @JsonProperty("name") String name,
        @JsonProperty("partitions") int partitions,
        @JsonProperty("config") IndexConfig config,
        @JsonProperty("fields_seen") List<String> fieldsSeen,
        @JsonProperty("scale") int scale,
        @JsonProperty("doc_count") long docCount,
        @JsonProperty("partition_doc_counts") List<Long> partitionDocCounts,
        @JsonProperty("created_at") String createdAt,
        @JsonProperty("build") @JsonInclude(JsonInclude.Include.NON_NULL) String build) {

    /**
     * 2: ids are also doc values. 3: typed fields (points and doc values), per-language copies of
     * text fields, keywords with doc values, ids as sorted doc values.
     */
    public static final int FORMAT = 3;

    public IndexManifest {
        if (format != FORMAT) {
            throw new IllegalArgumentException("format: " + format + " (expected: " + FORMAT + "): this index was built"
                    + " by " + (format < FORMAT ? "an older" : "a newer") + " Hedgerow; rebuild it from its source with"
                    + " `hedgerow index` (the Europarl demo rebuilds its own index by itself when it finds an old one)");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        if (scale < 1) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: >= 1)");
        }
        fieldsSeen = List.copyOf(fieldsSeen);
        partitionDocCounts = List.copyOf(partitionDocCounts);
        if (partitionDocCounts.size() != partitions) {
            throw new IllegalArgumentException("partition_doc_counts: " + partitionDocCounts.size()
                    + " entries (expected: " + partitions + ")");
        }
        if (build != null && !PartitionStore.isBuildName(build)) {
            throw new IllegalArgumentException("build: '" + build + "' (expected: build-NNNN)");
        }
    }

    /** A manifest whose partitions are in the index directory itself (no build directory). */
    public IndexManifest(int format, String name, int partitions, IndexConfig config, List<String> fieldsSeen, int scale,
            long docCount, List<Long> partitionDocCounts, String createdAt) {
        this(format, name, partitions, config, fieldsSeen, scale, docCount, partitionDocCounts, createdAt, null);
    }

    /** This manifest naming {@code newBuild} as the directory of its partitions. */
    public IndexManifest withBuild(String newBuild) {
        return new IndexManifest(format, name, partitions, config, fieldsSeen, scale, docCount, partitionDocCounts,
                createdAt, newBuild);
    }

    /** Reads {@code index.json}; one without {@code scale} was written before scaling existed, at scale 1. */
    @JsonCreator
    static IndexManifest fromJson(
            @JsonProperty("format") int format,
            @JsonProperty("name") String name,
            @JsonProperty("partitions") int partitions,
            @JsonProperty("config") IndexConfig config,
            @JsonProperty("fields_seen") List<String> fieldsSeen,
            @JsonProperty("scale") Integer scale,
            @JsonProperty("doc_count") long docCount,
            @JsonProperty("partition_doc_counts") List<Long> partitionDocCounts,
            @JsonProperty("created_at") String createdAt,
            @JsonProperty("build") String build) {
        return new IndexManifest(format, name, partitions, config, fieldsSeen, scale == null ? 1 : scale, docCount,
                partitionDocCounts, createdAt, build);
    }

    /** The fields a query term without {@code field:} searches. */
    public List<String> queryFields() {
        return config.queryFields(fieldsSeen);
    }
}
