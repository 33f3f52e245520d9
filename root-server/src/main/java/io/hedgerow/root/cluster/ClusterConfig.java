package io.hedgerow.root.cluster;

import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.tail.TailSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Settings of a root server.
 *
 * @param indexName      the index the leaves serve
 * @param leaves         leaf addresses, {@code host:port}; the position is the leaf's slot
 * @param partitions     micro-partitions of the index
 * @param replicas       copies of each partition, on distinct leaves
 * @param defaultTimeout how long a query waits for partitions when it names no timeout
 * @param maxTimeout     the longest timeout a query may ask for
 * @param ioThreads      Netty event loops shared by the HTTP server and leaf connections
 * @param maxFrameBytes  largest frame accepted from a leaf
 * @param hedge          hedged and tied requests: the default mode, delays and budget
 * @param tail           canaries, the blocklist, the good-enough cutoff and the result cache
 * @param index          the manifest of the index, when the root has its files (or learnt it from the
 *                       leaves before it started): every leaf must then serve exactly this index. Null:
 *                       the first leaf that answers with {@code indexName} and {@code partitions}
 *                       pins the index for the rest ({@link ServedIndex})
 * @param batchAdmission how many batch sub-requests each leaf may hold at once, adapted to the
 *                       interactive latency ({@link io.hedgerow.root.cost.BatchAdmission})
 * @param clusterSecret  the cluster's shared secret, sent in every Hello to a leaf; null: none (leaves
 *                       started without one serve any root)
 * @param adaptation     replica choice, stall detection and latency-induced probation, across requests
 * @param placement      re-replication, selective replication and rebalancing of partition copies
 * @param tlsTrust       dial the leaves over TLS, trusting the PEM certificates in this file
 *                       ({@link io.hedgerow.common.net.LinkTls}); null: plaintext
 * @param leafBatching   a search's primaries for several partitions of one leaf, chosen in the same
 *                       instant, go to it in one message ({@code LeafSearchRequest}) rather than one
 *                       each; backups, retries, twins and canaries always go alone (default: off:
 *                       measured below off in capacity and CPU per answer, docs/benchmarks/serving-cost.md)
 * @param leafSlots      how many leaves this root can hold: {@code leaves} fill the first slots; with
 *                       {@code --zk}, a leaf registered at another address takes the first free slot at run
 *                       time. Every per-leaf array is sized once by it. Slots are this root's own numbering:
 *                       what roots share (the stored plan, in-sync sets) names leaves by address
 */
public record ClusterConfig(
        String indexName,
        List<String> leaves,
        int partitions,
        int replicas,
        Duration defaultTimeout,
        Duration maxTimeout,
        int ioThreads,
        int maxFrameBytes,
        HedgeSettings hedge,
        TailSettings tail,
        IndexManifest index,
        BatchAdmissionSettings batchAdmission,
        String clusterSecret,
        AdaptationSettings adaptation,
        PlacementSettings placement,
        Path tlsTrust,
        boolean leafBatching,
        int leafSlots) {

    /** With as many leaf slots as {@code leaves}: no leaf joins at run time. */
    public ClusterConfig(String indexName, List<String> leaves, int partitions, int replicas, Duration defaultTimeout,
            Duration maxTimeout, int ioThreads, int maxFrameBytes, HedgeSettings hedge, TailSettings tail,
            IndexManifest index, BatchAdmissionSettings batchAdmission, String clusterSecret,
            AdaptationSettings adaptation, PlacementSettings placement, Path tlsTrust, boolean leafBatching) {
        this(indexName, leaves, partitions, replicas, defaultTimeout, maxTimeout, ioThreads, maxFrameBytes, hedge, tail,
                index, batchAdmission, clusterSecret, adaptation, placement, tlsTrust, leafBatching, leaves.size());
    }

    public ClusterConfig {
        if (clusterSecret != null && clusterSecret.isBlank()) {
            throw new IllegalArgumentException("clusterSecret: blank (expected: a non-blank secret, or null for none)");
        }
        Objects.requireNonNull(indexName, "indexName");
        leaves = List.copyOf(leaves);
        for (String leaf : leaves) {
            LeafAddress.parse(leaf);
        }
        if (leaves.isEmpty()) {
            throw new IllegalArgumentException("leaves: none (expected: at least one host:port)");
        }
        if (leaves.stream().distinct().count() != leaves.size()) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: no address twice)");
        }
        PartitionAssignment.spread(partitions, leaves.size(), replicas); // validates the counts
        if (leafSlots < leaves.size() || leafSlots > MAX_LEAF_SLOTS) {
            throw new IllegalArgumentException("leafSlots: " + leafSlots + " (expected: " + leaves.size() + ".."
                    + MAX_LEAF_SLOTS + ", at least the " + leaves.size() + " leaves listed)");
        }
        if (defaultTimeout.isNegative() || defaultTimeout.isZero()) {
            throw new IllegalArgumentException("defaultTimeout: " + defaultTimeout + " (expected: > 0)");
        }
        if (maxTimeout.compareTo(defaultTimeout) < 0) {
            throw new IllegalArgumentException("maxTimeout: " + maxTimeout + " (expected: >= defaultTimeout " + defaultTimeout + ")");
        }
        Objects.requireNonNull(hedge, "hedge");
        Objects.requireNonNull(tail, "tail");
        Objects.requireNonNull(batchAdmission, "batchAdmission");
        Objects.requireNonNull(adaptation, "adaptation");
        Objects.requireNonNull(placement, "placement");
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads: " + ioThreads + " (expected: >= 1)");
        }
        if (index != null && !index.name().equals(indexName)) {
            throw new IllegalArgumentException("indexName: '" + indexName + "' (expected: '" + index.name()
                    + "', the index's own name)");
        }
        if (index != null && index.partitions() != partitions) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: " + index.partitions()
                    + ", the partitions of index '" + index.name() + "')");
        }
    }

    /**
     * Defaults: 1 s default timeout, 60 s maximum, an event loop per core, {@link
     * HedgeSettings#defaults()}, {@link TailSettings#defaults()}.
     */
    public static ClusterConfig of(String indexName, List<String> leaves, int partitions, int replicas) {
        return new ClusterConfig(indexName, leaves, partitions, replicas, Duration.ofSeconds(1), Duration.ofSeconds(60),
                Runtime.getRuntime().availableProcessors(), WireCodec.DEFAULT_MAX_FRAME_BYTES, HedgeSettings.defaults(),
                TailSettings.defaults(), null, BatchAdmissionSettings.defaults(), null, AdaptationSettings.defaults(),
                PlacementSettings.defaults(), null, false);
    }

    /** As {@link #of(String, List, int, int)}, for exactly this index: its name and partition count. */
    public static ClusterConfig of(IndexManifest index, List<String> leaves, int replicas) {
        return of(index.name(), leaves, index.partitions(), replicas).withIndex(index);
    }

    /** For exactly this index; its name and partition count must be this config's. */
    public ClusterConfig withIndex(IndexManifest manifest) {
        return with(c -> c.index = manifest);
    }

    /** Raises the maximum timeout to {@code timeout} when it was lower. */
    public ClusterConfig withDefaultTimeout(Duration timeout) {
        return with(c -> {
            c.defaultTimeout = timeout;
            c.maxTimeout = maxTimeout.compareTo(timeout) < 0 ? timeout : maxTimeout;
        });
    }

    public ClusterConfig withIoThreads(int threads) {
        return with(c -> c.ioThreads = threads);
    }

    public ClusterConfig withHedge(HedgeSettings settings) {
        return with(c -> c.hedge = settings);
    }

    public ClusterConfig withTail(TailSettings settings) {
        return with(c -> c.tail = settings);
    }

    public ClusterConfig withBatchAdmission(BatchAdmissionSettings settings) {
        return with(c -> c.batchAdmission = settings);
    }

    /** The shared secret every Hello to a leaf carries (null: none). */
    public ClusterConfig withClusterSecret(String secret) {
        return with(c -> c.clusterSecret = secret);
    }

    /** Across-request adaptation: replica choice, stall detection, probation. */
    public ClusterConfig withAdaptation(AdaptationSettings settings) {
        return with(c -> c.adaptation = settings);
    }

    /** Re-replication, selective replication and rebalancing of partition copies. */
    public ClusterConfig withPlacement(PlacementSettings settings) {
        return with(c -> c.placement = settings);
    }

    /** Dial the leaves over TLS trusting the PEM certificates in {@code trusted} (null: plaintext). */
    public ClusterConfig withTlsTrust(Path trusted) {
        return with(c -> c.tlsTrust = trusted);
    }

    /** Whether a search's primaries for one leaf go to it in one message ({@link #leafBatching()}). */
    public ClusterConfig withLeafBatching(boolean on) {
        return with(c -> c.leafBatching = on);
    }

    /**
     * With {@code list} as the listed leaves, in the first slots; the leaf slots are raised to their
     * number when fewer.
     */
    public ClusterConfig withLeaves(List<String> list) {
        return with(c -> {
            c.leaves = list;
            c.leafSlots = Math.max(leafSlots, list.size());
        });
    }

    /** The most leaf slots a root may have (each costs a connection per event loop and per-leaf arrays). */
    public static final int MAX_LEAF_SLOTS = 4096;

    /**
     * With {@code slots} leaf slots: the listed leaves fill the first, and leaves that register in
     * ZooKeeper at other addresses take the free ones at run time ({@code LeafMembers}).
     */
    public ClusterConfig withLeafSlots(int slots) {
        return with(c -> c.leafSlots = slots);
    }

    /** This config with {@code change} applied to a copy of its settings, validated as any config is. */
    private ClusterConfig with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** A config's settings, one field each, for the withers to change before building a new record. */
    private static final class Copy {
        String indexName;
        List<String> leaves;
        int partitions;
        int replicas;
        Duration defaultTimeout;
        Duration maxTimeout;
        int ioThreads;
        int maxFrameBytes;
        HedgeSettings hedge;
        TailSettings tail;
        IndexManifest index;
        BatchAdmissionSettings batchAdmission;
        String clusterSecret;
        AdaptationSettings adaptation;
        PlacementSettings placement;
        Path tlsTrust;
        boolean leafBatching;
        int leafSlots;

        Copy(ClusterConfig c) {
            indexName = c.indexName;
            leaves = c.leaves;
            partitions = c.partitions;
            replicas = c.replicas;
            defaultTimeout = c.defaultTimeout;
            maxTimeout = c.maxTimeout;
            ioThreads = c.ioThreads;
            maxFrameBytes = c.maxFrameBytes;
            hedge = c.hedge;
            tail = c.tail;
            index = c.index;
            batchAdmission = c.batchAdmission;
            clusterSecret = c.clusterSecret;
            adaptation = c.adaptation;
            placement = c.placement;
            tlsTrust = c.tlsTrust;
            leafBatching = c.leafBatching;
            leafSlots = c.leafSlots;
        }

        ClusterConfig build() {
            return new ClusterConfig(indexName, leaves, partitions, replicas, defaultTimeout, maxTimeout, ioThreads,
                    maxFrameBytes, hedge, tail, index, batchAdmission, clusterSecret, adaptation, placement, tlsTrust,
                    leafBatching, leafSlots);
        }
    }

    @Override
    public String toString() {
        // Never print the secret.
        return "ClusterConfig[indexName=" + indexName + ", leaves=" + leaves + ", partitions=" + partitions
                + ", replicas=" + replicas + ", clusterSecret=" + (clusterSecret == null ? "none" : "set") + "]";
    }

    /** The first assignment: the partitions spread over the listed leaves; the other slots hold none. */
    public PartitionAssignment assignment() {
        return PartitionAssignment.spread(partitions, leaves.size(), replicas).widened(leafSlots);
    }
}
