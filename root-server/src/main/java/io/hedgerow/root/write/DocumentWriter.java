package io.hedgerow.root.write;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CuratorClusterStore;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.Partitioner;
import io.hedgerow.leaf.write.StoredFields;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.placement.CopyCatchUp;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Adds, updates, deletes and reads documents on a running cluster (the Java face of
 * {@code /documents}). Each write goes, by the same stable hash the offline build uses
 * ({@link Partitioner}), to its partition's {@link PartitionWriter}, which orders it, replicates it
 * to every in-sync replica and completes once each has it on disk. Searches see it within the
 * leaves' refresh interval (half a second), or at once with {@code waitForRefresh}. A read by id is
 * realtime: the partition's primary refreshes before it looks.
 *
 * <p>With {@link WriteSettings#coordination} ({@code --zk}), each partition's primary, term and
 * in-sync set live in ZooKeeper ({@link CuratorClusterStore}), shared with other roots and read at
 * start; the calls to it run on one thread of this writer's ("root-coordination"), never on an event
 * loop, and only when the cluster's state changes (start, a replica failing, a promotion, a copy
 * caught up), never per write.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. A returned future completes exactly once; a
 * write whose future completed with a success outcome is on the disk of every replica that was in
 * sync when it was written. Documents are checked against the index config by the primary (and by
 * {@code /documents} before that, per line).
 */
public final class DocumentWriter implements ReplicaSync, CopyCatchUp, AutoCloseable {
    private final ClusterState cluster;
    /** By leaf slot: made when the slot's leaf first holds a copy (guarded by the array). */
    private final WriteLink[] links;
    private final EventLoopGroup group;
    private final Transport transport;
    private final PartitionWriter[] partitions;
    private final ScheduledFuture<?> ticks;
    private final ScheduledFuture<?> invalidations;
    private final Runnable invalidateResults;
    private final WriteMeters meters;
    /** The session with the coordination store, and the thread its calls run on; both null without one. */
    private final CoordinationClient coordination;
    private final ExecutorService coordinationThread;

    private static final long INVALIDATE_EVERY_MILLIS = 100;
    /** Whether the last round of visibility polls found writes searches may miss; only the invalidation task touches it. */
    private boolean unconfirmed;

    /**
     * @param invalidateResults drops the root's cached search results. It runs every 100 ms while
     *                          some acknowledged write is not yet confirmed searchable on every in-sync
     *                          replica of its partition ({@link PartitionWriter#pollVisibility}), and
     *                          once more after, so a cached result never outlives the index state it
     *                          came from by more than that: while writes flow, the cache serves for
     *                          100 ms at most; without writes it is untouched
     * @param registry          where the write path's meters go ({@code /metrics})
     */
    public DocumentWriter(ClusterState cluster, EventLoopGroup group, Transport transport, WriteSettings settings,
            Ticker ticker, Runnable invalidateResults, MeterRegistry registry) throws java.io.IOException {
        this.cluster = cluster;
        this.invalidateResults = invalidateResults;
        this.meters = new WriteMeters(registry);
        this.group = group;
        this.transport = transport;
        this.links = new WriteLink[cluster.leaves().size()];
        if (settings.coordination() != null) {
            try {
                this.coordination = CoordinationClient.connect(settings.coordination());
            } catch (CoordinationException e) {
                throw new java.io.IOException("the write path keeps its partitions' states in ZooKeeper (--zk): "
                        + e.getMessage(), e);
            }
            this.coordinationThread = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "root-coordination");
                thread.setDaemon(true);
                return thread;
            });
        } else {
            this.coordination = null;
            this.coordinationThread = null;
        }
        CuratorClusterStore store = coordination == null ? null : new CuratorClusterStore(coordination);
        int count = cluster.assignment().partitions();
        this.partitions = new PartitionWriter[count];
        for (int p = 0; p < count; p++) {
            int[] replicaLeaves = cluster.assignment().replicasOf(p);
            WriteLink[] replicas = new WriteLink[replicaLeaves.length];
            for (int r = 0; r < replicaLeaves.length; r++) {
                replicas[r] = link(replicaLeaves[r]);
            }
            partitions[p] = new PartitionWriter(p, replicas, replicaLeaves, cluster.staleReplicas(), settings, ticker,
                    meters, store == null ? null : new StoredState(p, store, coordinationThread));
        }
        // A slot the write path names a replica on holds writes: another leaf must never take it over.
        cluster.writeReplicas(this::namesReplicaOn);
        // The first tick at once: each partition compares its replicas' last seqs before anything else.
        this.ticks = group.next().scheduleWithFixedDelay(() -> {
            for (PartitionWriter partition : partitions) {
                partition.tick();
            }
        }, 0, 1, TimeUnit.SECONDS);
        this.invalidations = group.next().scheduleWithFixedDelay(() -> {
            boolean pending = false;
            for (PartitionWriter partition : partitions) {
                pending |= partition.pollVisibility();
            }
            // One more clear after the last confirmation: a search may have started before it.
            if (pending || unconfirmed) {
                invalidateResults.run();
            }
            unconfirmed = pending;
        }, INVALIDATE_EVERY_MILLIS, INVALIDATE_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * When searches see a write, as Elasticsearch's {@code refresh}: {@link #NONE} within the
     * leaves' scheduled refresh (half a second), answered at once; {@link #IMMEDIATE} every in-sync
     * copy refreshes before the write is answered ({@code refresh=true}); {@link #WAIT_FOR} answered
     * once the scheduled refreshes of every in-sync copy made it visible ({@code refresh=wait_for}),
     * or after the write timeout.
     */
    public enum Refresh { NONE, IMMEDIATE, WAIT_FOR }

    /** Options of one write. */
    public record WriteOptions(long expectedVersion, Refresh refresh, boolean createOnly) {
        public static final WriteOptions NONE = new WriteOptions(0, Refresh.NONE, false);

        public WriteOptions {
            if (expectedVersion < 0) {
                throw new IllegalArgumentException("expectedVersion: " + expectedVersion + " (expected: >= 0; 0: any)");
            }
            java.util.Objects.requireNonNull(refresh, "refresh");
        }

        /** Writes whether or not the document exists. */
        public WriteOptions(long expectedVersion, Refresh refresh) {
            this(expectedVersion, refresh, false);
        }

        /**
         * {@code waitForRefresh}: searchable when answered ({@link Refresh#IMMEDIATE}), or not
         * ({@link Refresh#NONE}).
         */
        public WriteOptions(long expectedVersion, boolean waitForRefresh) {
            this(expectedVersion, waitForRefresh ? Refresh.IMMEDIATE : Refresh.NONE);
        }

        /** Whether the write is searchable once answered. */
        public boolean waitForRefresh() {
            return refresh != Refresh.NONE;
        }
    }

    /** The index config documents are checked against; null until a leaf has told the root its index. */
    public IndexConfig config() {
        IndexManifest manifest = cluster.index().manifest();
        return manifest == null ? null : manifest.config();
    }

    /** The name of the index this root serves. */
    public String indexName() {
        return cluster.index().name();
    }

    /** The partition a document id belongs to, in an index without a routing key. */
    public int partitionOf(String id) {
        return partitionOf(id, null);
    }

    /**
     * The partition of the document with {@code id} and routing value {@code routing} (ignored
     * when the index has no routing key).
     *
     * @throws IllegalArgumentException when the index is routed and {@code routing} is missing
     * @throws IllegalStateException    while no leaf has told the root its index
     */
    public int partitionOf(String id, String routing) {
        Partitioner partitioner = cluster.index().partitioner();
        if (partitioner == null) {
            throw new IllegalStateException("no leaf has told this root its index yet");
        }
        return partitioner.partitionOf(id, routing);
    }

    /**
     * Adds the document, or replaces the one with its id (only adds it with
     * {@link WriteOptions#createOnly}: CONFLICT when one exists); in a routed index its routing
     * field places it. One value per field; {@link #upsertValues} takes several.
     */
    public CompletableFuture<DocumentResult> upsert(String id, Map<String, String> fields, WriteOptions options) {
        return upsertFields(id, fields, options);
    }

    /**
     * As {@link #upsert}, with each field's values (a multi-valued field, as a JSON array is in a
     * file the offline build indexes). A field with one value is the same as a single-valued one.
     */
    public CompletableFuture<DocumentResult> upsertValues(String id, Map<String, ? extends List<String>> fields,
            WriteOptions options) {
        return upsertFields(id, fields, options);
    }

    /**
     * As {@link #upsert}, with fields as {@code SourceDocument.fields()} holds them: each value a
     * string, or a list of strings for a multi-valued field.
     */
    public CompletableFuture<DocumentResult> upsertFields(String id, Map<String, ?> fields, WriteOptions options) {
        WriteOp.Builder op = WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .setExpectedVersion(options.expectedVersion()).setCreateOnly(options.createOnly());
        // A multi-valued field goes as one entry per value, in order, under the same name: the leaf
        // maps a repeated name back to a list (and an op with each name once reads as it always did).
        IndexConfig config = config();
        List<String> key;
        try {
            for (Map.Entry<String, ?> field : fields.entrySet()) {
                for (String value : valuesOf(field.getKey(), field.getValue())) {
                    op.addFields(StoredField.newBuilder().setName(field.getKey()).setValue(value));
                }
            }
            key = config == null || config.routing() == null ? List.of()
                    : valuesOf(config.routing().field(), fields.get(config.routing().field()));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(refusal(id, e));
        }
        String routing = null;
        if (config != null && config.routing() != null) {
            if (key.size() > 1) {
                return CompletableFuture.completedFuture(DocumentResult.refused(id, DocumentResult.Outcome.REJECTED,
                        "field '" + config.routing().field() + "' holds " + key.size()
                                + " values (expected: one, since it is the routing field)"));
            }
            routing = key.isEmpty() ? null : key.get(0);
        }
        return write(op.build(), routing, options);
    }

    private static List<String> valuesOf(String name, Object value) {
        return switch (value) {
            case null -> List.of();
            case String one -> List.of(one);
            case List<?> several -> {
                for (Object each : several) {
                    if (!(each instanceof String)) {
                        throw new IllegalArgumentException("field '" + name + "' holds " + each
                                + " (expected: strings only)");
                    }
                }
                @SuppressWarnings("unchecked")
                List<String> strings = (List<String>) several;
                yield strings;
            }
            default -> throw new IllegalArgumentException("field '" + name + "' holds a "
                    + value.getClass().getSimpleName() + " (expected: a string or a list of strings)");
        };
    }

    /** Deletes the document with this id (NOT_FOUND when there is none), in an index without a routing key. */
    public CompletableFuture<DocumentResult> delete(String id, WriteOptions options) {
        return delete(id, null, options);
    }

    /** Deletes the document with this id and routing value (NOT_FOUND when there is none). */
    public CompletableFuture<DocumentResult> delete(String id, String routing, WriteOptions options) {
        return write(WriteOp.newBuilder().setKind(WriteKind.DELETE).setId(id)
                .setExpectedVersion(options.expectedVersion()).build(), routing, options);
    }

    private CompletableFuture<DocumentResult> write(WriteOp op, String routing, WriteOptions options) {
        if (op.getId().isEmpty()) {
            return CompletableFuture.completedFuture(DocumentResult.refused("", DocumentResult.Outcome.REJECTED,
                    "missing 'id' (expected: a non-empty string)"));
        }
        int p;
        try {
            p = partitionOf(op.getId(), routing);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return CompletableFuture.completedFuture(refusal(op.getId(), e));
        }
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        PartitionWriter partition = partitions[p];
        if (!partition.offer(new PartitionWriter.Pending(op, options.refresh() == Refresh.IMMEDIATE, result))) {
            meters.answered(DocumentResult.Outcome.OVERLOADED);
            return CompletableFuture.completedFuture(DocumentResult.refused(op.getId(), DocumentResult.Outcome.OVERLOADED,
                    "too many writes queued for partition " + p + " (the replicas are behind); retry after a moment"));
        }
        CompletableFuture<WriteResult> answered = options.refresh() != Refresh.WAIT_FOR ? result
                : result.thenCompose(written -> written.getSeq() == 0 ? CompletableFuture.completedFuture(written)
                        : partition.whenVisible(written.getSeq()).thenApply(visible -> written));
        return answered.thenApply(written -> {
            if (written.getSeq() > 0 && options.waitForRefresh()) {
                // Searchable now: no cached result from before it may be served from here on.
                invalidateResults.run();
            }
            DocumentResult answer = toResult(op.getId(), written);
            meters.answered(answer.outcome());
            return answer;
        });
    }

    /**
     * Reads a document by id, realtime (it sees every acknowledged write). Right after the root
     * starts, it waits (5 s at most) until the partition's replicas have been compared: before, the
     * first in assignment order might be one that missed writes.
     */
    public CompletableFuture<DocumentResult> get(String id) {
        return get(id, null);
    }

    /** As {@link #get(String)}, for the document with routing value {@code routing} in a routed index. */
    public CompletableFuture<DocumentResult> get(String id, String routing) {
        int partition;
        try {
            partition = partitionOf(id, routing);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return CompletableFuture.completedFuture(refusal(id, e));
        }
        return partitions[partition].replicas().whenReconciled()
                .copy().completeOnTimeout(null, 5, TimeUnit.SECONDS)
                .thenCompose(ignored -> read(id, partition));
    }

    private CompletableFuture<DocumentResult> read(String id, int partition) {
        if (!partitions[partition].replicas().reconciled()) {
            // Before the replicas are compared the first in order may be one that missed writes.
            return CompletableFuture.completedFuture(DocumentResult.refused(id, DocumentResult.Outcome.UNAVAILABLE,
                    "partition " + partition + " has not been reconciled since the root started (a replica did not"
                            + " answer): no replica is known to hold every acknowledged write"));
        }
        WriteLink primary = partitions[partition].primaryLink();
        if (primary == null) {
            return CompletableFuture.completedFuture(DocumentResult.refused(id, DocumentResult.Outcome.UNAVAILABLE,
                    "no replica of partition " + partition + " is in sync"));
        }
        // With the stored term: a leaf that has seen a newer primary refuses to answer for a deposed one.
        WriteRequest.Builder request = WriteRequest.newBuilder().setPartition(partition)
                .setPrimaryTerm(partitions[partition].replicas().term())
                .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id));
        return primary.send(request, java.time.Duration.ofSeconds(5)).handle((response, failure) -> {
            if (failure != null || response.getStatus() != Status.OK) {
                return DocumentResult.refused(id, DocumentResult.Outcome.UNAVAILABLE, failure != null
                        ? failure.getMessage() : response.getStatus() + ": " + response.getError());
            }
            return toResult(id, response.getResults(0));
        });
    }

    /** A document refused before it reached a partition: no routing value (400), or no index known yet (503). */
    private DocumentResult refusal(String id, RuntimeException e) {
        DocumentResult.Outcome outcome = e instanceof IllegalArgumentException
                ? DocumentResult.Outcome.REJECTED : DocumentResult.Outcome.UNAVAILABLE;
        meters.answered(outcome);
        return DocumentResult.refused(id, outcome, e.getMessage());
    }

    private static DocumentResult toResult(String id, WriteResult written) {
        // One entry per stored value: a name repeated is a multi-valued field, read back as a list.
        Map<String, Object> fields = StoredFields.byName(written.getFieldsList());
        DocumentResult.Outcome outcome = switch (written.getOutcome()) {
            case CREATED -> DocumentResult.Outcome.CREATED;
            case UPDATED -> DocumentResult.Outcome.UPDATED;
            case DELETED -> DocumentResult.Outcome.DELETED;
            case FOUND -> DocumentResult.Outcome.FOUND;
            case NOT_FOUND -> DocumentResult.Outcome.NOT_FOUND;
            case CONFLICT -> DocumentResult.Outcome.CONFLICT;
            case REJECTED -> written.getError().startsWith(PartitionWriter.UNAVAILABLE)
                    ? DocumentResult.Outcome.UNAVAILABLE : DocumentResult.Outcome.REJECTED;
            case UNRECOGNIZED -> DocumentResult.Outcome.REJECTED;
        };
        return new DocumentResult(id, outcome, written.getVersion(), written.getError(), fields);
    }

    /**
     * Waits (the caller's thread, never an event loop) until every partition's replicas have been
     * compared ({@link ReplicaSet#reconcile}: every replica said its last seq), for {@code patience}
     * at most.
     *
     * @return whether every partition is reconciled
     */
    public boolean awaitReconciled(java.time.Duration patience) throws InterruptedException {
        CompletableFuture<?>[] all = new CompletableFuture<?>[partitions.length];
        for (int p = 0; p < partitions.length; p++) {
            all[p] = partitions[p].replicas().whenReconciled();
        }
        try {
            CompletableFuture.allOf(all).get(patience.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
    }

    /** How many replicas of a partition are in sync now (for {@code /cluster} and tests). */
    public int inSyncReplicas(int partition) {
        return partitions[partition].replicas().inSyncCount();
    }

    @Override
    public boolean inSync(int partition, LeafAddress leaf) {
        return partition < 0 || partition >= partitions.length || partitions[partition].replicas().inSync(leaf);
    }

    @Override
    public void copies(int partition, int[] leaves) {
        partitions[partition].copies(leaves, this::link);
    }

    /** Whether a replica of some partition is on the leaf in {@code slot}. */
    private boolean namesReplicaOn(int slot) {
        for (PartitionWriter partition : partitions) {
            if (partition != null && partition.replicas().members().stream().anyMatch(r -> r.leaf == slot)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The write link to the leaf in {@code slot}, made on first use: a slot filled at run time has
     * none before the placement gives its leaf a copy. A slot another leaf took over (its old leaf left
     * for good, holding no replica) gets a new link to the new leaf; the old one is closed.
     */
    private WriteLink link(int slot) {
        synchronized (links) {
            LeafAddress address = cluster.leaf(slot).address();
            if (links[slot] != null && !links[slot].address().equals(address)) {
                links[slot].close();
                links[slot] = null;
            }
            if (links[slot] == null) {
                if (address == null) {
                    throw new IllegalStateException("leaf slot " + slot + ": vacant (expected: a slot a leaf"
                            + " filled, for a copy of a partition)");
                }
                links[slot] = new WriteLink(address, group, transport.channelClass(), cluster.rootHello(),
                        cluster.config().maxFrameBytes(), cluster.linkTls(), cluster.index()::admit);
            }
            return links[slot];
        }
    }

    @Override
    public boolean caughtUp(int partition, int leaf) {
        return partitions[partition].replicas().memberInSync(leaf);
    }

    @Override
    public boolean primaryAt(int partition, int leaf) {
        return partitions[partition].replicas().primaryAt(leaf);
    }

    @Override
    public void catchUpSoon(int partition) {
        partitions[partition].catchUpSoon();
    }

    /** Each replica of a partition as the write path sees it: primary, in sync, known seq, problem. */
    public List<ReplicaStatus> replicas(int partition) {
        return partitions[partition].replicas().status();
    }

    /** Partitions written to. */
    public int partitions() {
        return partitions.length;
    }

    @Override
    public void close() {
        ticks.cancel(false);
        invalidations.cancel(false);
        for (PartitionWriter partition : partitions) {
            partition.close();
        }
        synchronized (links) {
            for (WriteLink link : links) {
                if (link != null) {
                    link.close();
                }
            }
        }
        if (coordination != null) {
            coordinationThread.shutdownNow();
            coordination.close();
        }
    }

    /** The partition's primary term as this root last read or wrote it (0: no coordination store). */
    public long primaryTerm(int partition) {
        return partitions[partition].replicas().term();
    }
}
