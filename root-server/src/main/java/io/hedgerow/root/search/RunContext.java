package io.hedgerow.root.search;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.root.hedge.RequestClass;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.TailGuard;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One search's constants and the root's shared policies, as every part of its {@link SearchRun}
 * sees them: the request, its deadline and classes, how to choose a replica, the leaves' budget.
 */
public final class RunContext {
    /** The leaves' budget is the root's remaining time less this fraction of it... */
    private static final long LEAF_MARGIN_DIVISOR = 10;
    /** ...but less at most this much: enough for the answer to travel and be merged. */
    private static final long MAX_LEAF_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Priority[] WIRE_PRIORITY = {Priority.INTERACTIVE, Priority.BATCH};
    private static final Priority[] BACKUP_PRIORITY = {Priority.BACKUP, Priority.BATCH};

    final FanOutContext shared;
    /** The leaves, with the copies this search chose and has not handed over yet counted as outstanding. */
    final ChosenLeaves leaves;
    final LongSupplier requestIds;
    final RandomGenerator random;
    final SearchRequest request;
    final TailGuard.Run run;
    final long startNanos;
    final long deadlineNanos;
    final HedgeMode hedgeMode;
    final RequestClass requestClass;
    /** The leaves' class of the search's copies, and of its backups. */
    final Priority priority;
    final Priority backupPriority;
    /** The index's partition count. */
    final int partitions;
    /** The partitions this search asks, in order: every one, or those of its routing value. */
    final int[] targets;
    final io.hedgerow.common.wire.proto.SearchRequest wirePrototype;
    /** The HTTP request's id (carried to the leaves) and when its result gets a trace unasked. */
    final RequestTag tag;
    /** A fan-out's first copies for one leaf go in one message ({@link io.hedgerow.root.cluster.ClusterConfig#leafBatching()}). */
    final boolean leafBatching;
    /** Backups one partition (or fetch) may get: see {@link #hedgeRounds}. */
    private final int hedgeRounds;

    /**
     * @param targets the partitions to ask ({@link #targetsOf}); null for every partition
     */
    public RunContext(FanOutContext shared, LeafView leaves, LongSupplier requestIds, RandomGenerator random,
            SearchRequest request, TailGuard.Run run, long startNanos, long timeoutNanos, int[] targets) {
        this(shared, leaves, requestIds, random, request, run, startNanos, timeoutNanos, targets, RequestTag.NONE);
    }

    /** As the constructor above, for a search run for an HTTP request tagged {@code tag}. */
    public RunContext(FanOutContext shared, LeafView leaves, LongSupplier requestIds, RandomGenerator random,
            SearchRequest request, TailGuard.Run run, long startNanos, long timeoutNanos, int[] targets,
            RequestTag tag) {
        this.tag = tag;
        this.shared = shared;
        this.leaves = new ChosenLeaves(leaves);
        this.requestIds = requestIds;
        this.random = random;
        this.request = request;
        this.run = run;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + timeoutNanos;
        this.leafBatching = shared.cluster().config().leafBatching();
        this.hedgeMode = request.hedgeMode(shared.cluster().config().hedge().defaultMode());
        // Batch latencies include the root's batch admission: learnt apart from interactive ones.
        this.requestClass = request.priority() == QueryPriority.BATCH ? RequestClass.BATCH
                : RequestClass.of(request.query());
        this.priority = WIRE_PRIORITY[request.priority().ordinal()];
        this.backupPriority = BACKUP_PRIORITY[request.priority().ordinal()];
        this.partitions = shared.cluster().assignment().partitions();
        this.targets = targets != null ? targets : shared.cluster().allPartitions();
        var assignment = shared.cluster().assignment();
        int mostReplicas = targets != null ? assignment.mostReplicas(targets) : assignment.mostReplicas();
        this.hedgeRounds = hedgeMode == HedgeMode.HEDGED ? Math.max(0, mostReplicas - 1) : 0;
        this.wirePrototype = io.hedgerow.common.wire.proto.SearchRequest.newBuilder()
                .setQuery(request.query())
                .setK(request.window())
                .setPriority(priority)
                .setTotalHitsThreshold(request.totalHitsThreshold())
                .setCostHint(run.fingerprint() == null ? 0 : shared.costs().book().hint(run.fingerprint()))
                .setLogRequestId(tag.requestId())
                .mergeFrom(io.hedgerow.root.merge.WireShape.of(request))
                .build();
    }

    /**
     * The partitions {@code request} asks: null (every one) without a routing value, else its
     * value's partitions.
     *
     * @throws io.hedgerow.api.SearchException when the request names a routing value the index
     *                                              cannot route (it has no routing key, or is not known yet)
     */
    public static int[] targetsOf(FanOutContext shared, SearchRequest request) {
        return request.routing() == null ? null : shared.cluster().index().partitionsOf(request.routing());
    }

    RootMetrics metrics() {
        return shared.metrics();
    }

    /**
     * The budget a sub-request sent now gives its leaf: the time left until the root's deadline,
     * less a tenth of it (at most 50 ms), so that a leaf that stops at its deadline ({@code
     * cut_short}) still answers in time to be merged. 0 when the deadline has passed (send nothing:
     * on the wire 0 would mean no deadline).
     */
    long leafBudgetNanos(long nowNanos) {
        long remaining = deadlineNanos - nowNanos;
        if (remaining <= 0) {
            return 0;
        }
        return Math.max(1, remaining - Math.min(remaining / LEAF_MARGIN_DIVISOR, MAX_LEAF_MARGIN_NANOS));
    }

    /** The query phase's (and the canary's) hedge delay: the request's own, or the adaptive one. */
    long searchHedgeDelayNanos() {
        return request.hedgeAfterMillis() > 0 ? TimeUnit.MILLISECONDS.toNanos(request.hedgeAfterMillis())
                : shared.hedgeDelay().delayNanos(requestClass);
    }

    /** The fetch phase's hedge delay: the request's own, or the adaptive one learnt from fetches. */
    long fetchHedgeDelayNanos() {
        return request.hedgeAfterMillis() > 0 ? TimeUnit.MILLISECONDS.toNanos(request.hedgeAfterMillis())
                : shared.fetchDelay().delayNanos(requestClass);
    }

    /**
     * How many hedge rounds the search may run: none unless hedged; else one per replica beyond the
     * first of its most replicated target partition in the serving assignment as the search starts
     * (a hot partition's extra copies count, not only the configured replicas). A round gives a
     * backup only to a partition that still has a replica not asked, within the budget.
     */
    int hedgeRounds() {
        return hedgeRounds;
    }

    /**
     * The ready replica the dispatch policy prefers for {@code partition}, or -1. An out-of-sync
     * (stale) replica misses acknowledged writes: it is chosen only when the request allows stale
     * copies, and then only as the last resort, when no other may answer: the copy is marked, and the
     * result says so ({@link io.hedgerow.api.Coverage.Degradation#STALE_COPY}). Otherwise the
     * partition goes unanswered and the result is tainted without it.
     */
    int chooseReplica(int partition, LeafSet excludedLeaves) {
        if (!request.allowStale()) {
            return chooseInSyncReplica(partition, excludedLeaves);
        }
        return shared.policy().chooseReplica(partition, shared.cluster().assignment().replicasOf(partition), leaves,
                excludedLeaves, random);
    }

    /**
     * Whether a ready replica of {@code partition} not in {@code excludedLeaves} is out of sync: when
     * no other is left, it is why the partition went unanswered.
     */
    boolean staleReplicaLeft(int partition, LeafSet excludedLeaves) {
        for (int leaf : shared.cluster().assignment().replicasOf(partition)) {
            if (!excludedLeaves.contains(leaf) && leaves.isReady(leaf) && leaves.stale(partition, leaf)) {
                return true;
            }
        }
        return false;
    }

    /**
     * As {@link #chooseReplica}, among the in-sync replicas only: for backups and twins, extra
     * copies that race the partition's first one, so a stale copy never wins a race against a
     * merely slow in-sync one. -1 when no in-sync replica may be used.
     */
    int chooseInSyncReplica(int partition, LeafSet excludedLeaves) {
        int[] replicas = shared.cluster().assignment().replicasOf(partition);
        LeafSet excluded = excludedLeaves;
        for (int leaf : replicas) {
            if (leaves.stale(partition, leaf) && !excluded.contains(leaf)) {
                excluded = excluded.with(leaf); // rare: one volatile read per replica while none is stale
            }
        }
        return shared.policy().chooseReplica(partition, replicas, leaves, excluded, random);
    }

    /**
     * Whether the root's batch admission holds copies of class {@code priority} back until their
     * leaf has a place ({@link io.hedgerow.root.transport.BatchSends#holdsBack}): batch work, while
     * the admission is on.
     */
    boolean heldBackByBatchAdmission(Priority priority) {
        return priority == Priority.BATCH && shared.costs().batch().enabled();
    }

    String leafName(int leaf) {
        return shared.cluster().leaf(leaf).name();
    }

    Twin twinOf(int leaf, long requestId) {
        return Twin.newBuilder().setLeafAddress(leafName(leaf)).setRequestId(requestId).build();
    }

    /** The twin a second copy names, with the grace its leaf waits before it may start it. */
    Twin twinOf(int leaf, long requestId, long graceNanos) {
        return Twin.newBuilder().setLeafAddress(leafName(leaf)).setRequestId(requestId).setGraceNanos(graceNanos).build();
    }

    long elapsedMillis(long nowNanos) {
        return TimeUnit.NANOSECONDS.toMillis(nowNanos - startNanos);
    }
}
