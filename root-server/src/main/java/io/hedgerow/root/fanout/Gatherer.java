package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.Twin;
import io.hedgerow.root.api.CacheStatus;
import io.hedgerow.root.api.Coverage;
import io.hedgerow.root.api.Hit;
import io.hedgerow.root.api.PartitionError;
import io.hedgerow.root.api.SearchException;
import io.hedgerow.root.api.SearchRequest;
import io.hedgerow.root.api.SearchResult;
import io.hedgerow.root.api.SubRequestTrace;
import io.hedgerow.root.api.TotalHits;
import io.hedgerow.root.fanout.HitMerger.MergedHit;
import io.hedgerow.root.hedge.HedgeMode;
import io.hedgerow.root.hedge.RequestClass;
import io.hedgerow.root.hedge.RoundTrip;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.metrics.RootMetrics.CancelOutcome;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics.SubRequestError;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.CanaryCheck;
import io.hedgerow.root.tail.GoodEnoughCutoff;
import io.hedgerow.root.tail.ScaledPercentile;
import io.hedgerow.root.tail.TailGuard;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Scatter-gather of one query, in two phases.
 *
 * <p><b>Query phase:</b> first, unless the query is known safe, the query goes to one or two
 * canary partitions alone; only when they have answered (or failed with an ordinary error) does it
 * go to the rest. A canary whose leaf drops the connection, or that does not answer within the
 * canary timeout, marks the query dangerous: it is sent nowhere else, fails, and is blocklisted
 * ({@link TailGuard#dangerous}). Then one sub-request per partition to a replica the policy
 * chooses; a failed one is retried once on another replica. The phase ends when every partition
 * answered or failed; or, once the good-enough cutoff has passed, as soon as the answered
 * partitions hold {@code min_coverage} of the documents; or at the deadline. Whatever is still out
 * is cancelled, and the answers are merged into the top k. The first answer for a partition wins,
 * and every other copy of it is cancelled at once. Against slow replicas ("The Tail at Scale"):
 * <ul>
 *   <li><b>hedged:</b> a partition still unanswered after the hedge delay gets a backup on another
 *       ready replica, at the leaves' lower BACKUP priority, if the hedge budget allows;
 *   <li><b>tied:</b> each partition goes to two replicas, the second a moment later, each tagged
 *       with its twin; the leaf that starts work first cancels the other copy itself.
 * </ul>
 *
 * <p><b>Fetch phase</b> (when the request wants stored fields or snippets): one fetch per leaf for
 * the merged hits it holds, preferring the leaf that answered their partition. A failed fetch is
 * retried once on other replicas; hits whose fetch still fails, or has not answered by the
 * deadline, come back with id and score only, noted in the errors.
 *
 * <p>A partition that no replica could answer is not an error of the query: the result comes back
 * with the partitions that did answer, tainted, with coverage and a reason per missing partition.
 * The query fails only when the query itself is bad or no partition answered at all.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its event loop (the loop of its
 * {@link LoopConnections}); its promise is completed exactly once, on that loop.
 */
final class Gatherer implements Runnable {
    /** Sends per fetched hit: the first, and one retry on another replica. */
    private static final int MAX_FETCH_SENDS = 2;
    /** Retries per partition after a failure (backups and twins are not retries). */
    private static final int MAX_RETRIES = 1;

    private enum Phase { QUERY, FETCH, DONE }

    private static final Priority[] WIRE_PRIORITY = {Priority.INTERACTIVE, Priority.BATCH};
    private static final Priority[] BACKUP_PRIORITY = {Priority.BACKUP, Priority.BATCH};

    private final FanOutContext context;
    private final LoopConnections connections;
    private final SearchRequest request;
    private final io.hedgerow.common.wire.proto.SearchRequest wirePrototype;
    private final long startNanos;
    private final long deadlineNanos;
    private final CompletableFuture<SearchResult> promise;
    private final HedgeMode hedgeMode;
    private final RequestClass requestClass;
    private final TailGuard.Run run;
    /** Since the start; ends the wait once the answered partitions cover {@code run.minCoverage()}. */
    private final long cutoffNanos;
    private final Priority priority;
    private final Priority backupPriority;
    private Phase phase = Phase.QUERY;
    private ScheduledFuture<?> deadlineTimer;
    private ScheduledFuture<?> hedgeTimer;
    private ScheduledFuture<?> canaryTimer;
    private ScheduledFuture<?> cutoffTimer;
    /** Only canaries are out: the wide fan-out waits for them. */
    private boolean canaryPhase;
    private int canariesPending;
    private boolean canaryPassed;
    /** A canary stuck on a silent leaf went once more to another replica. */
    private boolean canaryResent;
    private long canaryDeadlineNanos;
    /** The canary timeout rests on enough samples to call a slow canary dangerous. */
    private boolean canaryTimeoutLearnt;
    /** The query phase ended at the good-enough cutoff. */
    private boolean cutOff;

    // Query phase, by partition.
    private final int partitions;
    private final SearchResponse[] answers;
    private final boolean[] answered;
    private final int[] answeredBy;
    private final long[] triedLeaves;
    private final byte[] outstanding;
    private final byte[] retries;
    /** A backup or a twin went out (or was refused by the budget): one per partition. */
    private final boolean[] hedged;
    /** Tied mode: the first copy's leaf and request id, and the twin's, by partition; -1: no twin. */
    private int[] firstLeaf;
    private long[] firstRequestId;
    private int[] twinLeaf;
    private long[] twinRequestId;
    private final PartitionError[] failures;
    private final List<ShardCall> calls;
    private int answeredCount;
    private int failedCount;

    // Fetch phase, by position in the merged hits.
    private List<MergedHit> merged;
    private FetchedDoc[] details;
    private long[] fetchTriedLeaves;
    private byte[] fetchSends;
    private String[] fetchFailures;
    private List<FetchCall> fetches;
    private int fetchesOutstanding;

    Gatherer(FanOutContext context, LoopConnections connections, SearchRequest request, TailGuard.Run run,
            long startNanos, long timeoutNanos, CompletableFuture<SearchResult> promise) {
        this.context = context;
        this.connections = connections;
        this.request = request;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + timeoutNanos;
        this.promise = promise;
        this.partitions = context.cluster().assignment().partitions();
        this.answers = new SearchResponse[partitions];
        this.answered = new boolean[partitions];
        this.answeredBy = new int[partitions];
        this.triedLeaves = new long[partitions];
        this.outstanding = new byte[partitions];
        this.retries = new byte[partitions];
        this.hedged = new boolean[partitions];
        this.failures = new PartitionError[partitions];
        this.calls = new ArrayList<>(partitions + 4);
        this.hedgeMode = request.hedgeMode(context.cluster().config().hedge().defaultMode());
        this.requestClass = RequestClass.of(request.query());
        this.run = run;
        this.cutoffNanos = run.minCoverage() < 1 ? context.tail().cutoff().cutoffNanos() : Long.MAX_VALUE;
        this.priority = WIRE_PRIORITY[request.priority().ordinal()];
        this.backupPriority = BACKUP_PRIORITY[request.priority().ordinal()];
        this.wirePrototype = io.hedgerow.common.wire.proto.SearchRequest.newBuilder()
                .setQuery(request.query())
                .setK(request.k())
                .setPriority(priority)
                .setTotalHitsThreshold(request.totalHitsThreshold())
                .build();
    }

    void start() {
        context.metrics().searchStarted();
        context.metrics().subRequestsNeeded(RootMetrics.Phase.QUERY, partitions);
        if (hedgeMode == HedgeMode.TIED) {
            firstLeaf = new int[partitions];
            firstRequestId = new long[partitions];
            twinLeaf = new int[partitions];
            twinRequestId = new long[partitions];
        }
        deadlineTimer = connections.loop().schedule(this, deadlineNanos - context.ticker().nanoTime(),
                TimeUnit.NANOSECONDS);
        if (run.canaries() > 0 && partitions > 1) {
            sendCanaries();
        } else {
            fanOut();
        }
    }

    /**
     * The canaries: the query to one partition, or two on far-apart partitions (and so, with the
     * usual spread, on different leaves), chosen at random so no leaf takes every first hit.
     */
    private void sendCanaries() {
        int first = java.util.concurrent.ThreadLocalRandom.current().nextInt(partitions);
        int[] canaries = run.canaries() == 1 ? new int[] {first} : new int[] {first, (first + partitions / 2) % partitions};
        canaryPhase = true;
        canariesPending = canaries.length;
        scheduleCanaryTimer();
        for (int p : canaries) {
            if (phase == Phase.QUERY && canaryPhase) {
                sendFirst(p);
            }
        }
    }

    /** A canary partition answered or failed (with an ordinary error): the rest go once all have. */
    private void canaryDone() {
        if (--canariesPending > 0) {
            return;
        }
        canaryPhase = false;
        cancelTimer(canaryTimer);
        canaryPassed = answeredCount > 0;
        fanOut();
    }

    /**
     * Arms the canary timeout, checked early at the hedge delay when the query is hedged: a leaf
     * that has answered nothing since the canary went out by then is stalled, and waiting out the
     * whole canary timeout on it would cost every query that drew it as its canary.
     */
    private void scheduleCanaryTimer() {
        long now = context.ticker().nanoTime();
        ScaledPercentile.Estimate timeout = context.tail().canaryTimeout().estimate(requestClass);
        long timeoutNanos = timeout.nanos();
        canaryTimeoutLearnt = timeout.basis() != ScaledPercentile.Basis.TOO_FEW_SAMPLES;
        canaryDeadlineNanos = now + Math.min(timeoutNanos, deadlineNanos - now);
        long checkNanos = hedgeMode == HedgeMode.HEDGED && !canaryResent ? Math.min(hedgeDelayNanos(), timeoutNanos) : timeoutNanos;
        canaryTimer = connections.loop().schedule(this::checkCanaries, Math.min(checkNanos, deadlineNanos - now),
                TimeUnit.NANOSECONDS);
    }

    /** A canary is still out at its check: {@link CanaryCheck} decides from what its leaves did since. */
    private void checkCanaries() {
        canaryTimer = null;
        if (phase != Phase.QUERY || !canaryPhase) {
            return;
        }
        long now = context.ticker().nanoTime();
        List<ShardCall> stuck = new ArrayList<>(2);
        boolean overtaken = false;
        boolean silent = true;
        for (ShardCall call : calls) {
            if (!call.isDone()) {
                stuck.add(call);
                overtaken |= call.connection().progress().overtaken(call.sentNanos(), call.priority());
                silent &= !call.connection().progress().doneSince(call.sentNanos());
            }
        }
        // Before the timeout has been learnt (a cold root, a rare query shape) nothing says what is
        // slow for this class: a slow canary then waits, and only a crash blocklists.
        boolean pastTimeout = now - canaryDeadlineNanos >= 0;
        switch (CanaryCheck.decide(overtaken, silent, canaryResent, canaryTimeoutLearnt && pastTimeout)) {
            case DANGEROUS -> dangerous(Blocklist.Reason.CANARY_TIMED_OUT, "did not answer within the canary timeout ("
                    + TimeUnit.NANOSECONDS.toMillis(now - startNanos) + " ms, sent twice, last on leaf " + leafNames(stuck)
                    + ", which meanwhile answered queries sent after it)");
            case RESEND -> resendCanaries(stuck);
            case WAIT -> {
                long nextNanos = pastTimeout ? context.tail().canaryTimeout().timeoutNanos(requestClass) : canaryDeadlineNanos - now;
                canaryTimer = connections.loop().schedule(this::checkCanaries, nextNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * The stuck canaries, once more on other replicas, in place of the stuck copies (cancelled),
     * with a fresh timeout. With no other replica ready (or all tried, a busy one retried), the
     * canaries wait and are checked again: without a second opinion nothing is blocklisted.
     */
    private void resendCanaries(List<ShardCall> stuck) {
        boolean resent = false;
        for (ShardCall call : stuck) {
            int leaf = chooseReplica(call.partition(), triedLeaves[call.partition()]);
            if (leaf >= 0) {
                outstanding[call.partition()]--;
                cancel(call);
                sendCopy(call.partition(), leaf, connections.nextRequestId(), SubRequestTrace.Kind.CANARY, priority, null);
                resent = true;
            }
        }
        if (resent) {
            canaryResent = true;
            context.metrics().canaryResent();
        }
        scheduleCanaryTimer();
    }

    private static String leafNames(List<ShardCall> calls) {
        List<String> names = new ArrayList<>(calls.size());
        for (ShardCall call : calls) {
            names.add(leafName(call));
        }
        return String.join(", ", names);
    }

    private void dangerous(Blocklist.Reason reason, String detail) {
        cancelTimer(canaryTimer);
        context.metrics().dangerous(reason);
        fail(RequestError.DANGEROUS, context.tail().dangerous(run, reason, detail));
    }

    /** One sub-request for every partition not asked yet, then the timers of hedging and the cutoff. */
    private void fanOut() {
        for (int p = 0; p < partitions && phase == Phase.QUERY; p++) {
            if (triedLeaves[p] == 0 && failures[p] == null) {
                sendFirst(p);
            }
        }
        if (phase != Phase.QUERY) {
            return;
        }
        if (answeredCount + failedCount == partitions) {
            endQueryPhase(); // the canaries were all there was
            return;
        }
        if (cutoffNanos < deadlineNanos - startNanos) {
            cutoffTimer = connections.loop().schedule(this::cutoffPassed,
                    startNanos + cutoffNanos - context.ticker().nanoTime(), TimeUnit.NANOSECONDS);
        }
        switch (hedgeMode) {
            case HEDGED -> {
                long delayNanos = hedgeDelayNanos();
                context.metrics().hedgeDelayUsed(delayNanos);
                hedgeTimer = connections.loop().schedule(this::sendBackups, delayNanos, TimeUnit.NANOSECONDS);
            }
            case TIED -> {
                long delayNanos = tiedDelayNanos();
                if (delayNanos <= 0) {
                    sendTwins();
                } else {
                    hedgeTimer = connections.loop().schedule(this::sendTwins, delayNanos, TimeUnit.NANOSECONDS);
                }
            }
            case OFF -> {
            }
        }
    }

    private long hedgeDelayNanos() {
        return request.hedgeAfterMillis() > 0 ? TimeUnit.MILLISECONDS.toNanos(request.hedgeAfterMillis())
                : context.hedgeDelay().delayNanos(requestClass);
    }

    /** The cutoff passed: end now if what has answered is good enough, else at the next answer that makes it so. */
    private void cutoffPassed() {
        cutoffTimer = null;
        if (phase == Phase.QUERY && !canaryPhase && goodEnough(context.ticker().nanoTime())) {
            endQueryPhase();
        }
    }

    /** Past the cutoff with enough of the documents answered; notes that the query was cut off if so. */
    private boolean goodEnough(long now) {
        if (now - startNanos < cutoffNanos
                || !GoodEnoughCutoff.covers(context.cluster().docsFraction(answered), run.minCoverage())) {
            return false;
        }
        cutOff = true;
        return true;
    }

    /** The deadline passed: answer with what has come. */
    @Override
    public void run() {
        switch (phase) {
            case QUERY -> endQueryPhase();
            case FETCH -> complete();
            case DONE -> {
            }
        }
    }

    // ---------------------------------------------------------------- query phase

    /** The partition's first sub-request, and in tied mode the choice of its twin. */
    private void sendFirst(int partition) {
        int leaf = chooseReplica(partition, 0);
        if (leaf < 0) {
            noReplica(partition);
            return;
        }
        long requestId = connections.nextRequestId();
        Twin twin = null;
        if (canaryPhase) {
            hedged[partition] = true; // a query that may be deadly gets no second copy
            sendCopy(partition, leaf, requestId, SubRequestTrace.Kind.CANARY, priority, null);
            return;
        }
        if (hedgeMode == HedgeMode.TIED) {
            firstLeaf[partition] = leaf;
            firstRequestId[partition] = requestId;
            int other = chooseReplica(partition, 1L << leaf);
            twinLeaf[partition] = other;
            if (other >= 0) {
                twinRequestId[partition] = connections.nextRequestId();
                twin = twinOf(other, twinRequestId[partition]);
            }
        }
        context.budget().primarySent();
        sendCopy(partition, leaf, requestId, SubRequestTrace.Kind.PRIMARY, priority, twin);
    }

    /** After a failure with no other copy out: one more try on a replica not tried yet. */
    private void sendRetry(int partition) {
        int leaf = chooseReplica(partition, triedLeaves[partition]);
        if (leaf < 0) {
            noReplica(partition);
            return;
        }
        retries[partition]++;
        sendCopy(partition, leaf, connections.nextRequestId(), SubRequestTrace.Kind.RETRY, priority, null);
    }

    /** The hedge delay passed: a backup for each partition still waiting on its only copy. */
    private void sendBackups() {
        hedgeTimer = null;
        for (int p = 0; p < partitions && phase == Phase.QUERY; p++) {
            if (answered[p] || hedged[p] || outstanding[p] == 0) {
                continue;
            }
            int leaf = chooseReplica(p, triedLeaves[p]);
            if (leaf < 0) {
                continue; // no other replica is ready: nothing to hedge with
            }
            hedged[p] = true;
            if (!context.budget().tryBackup()) {
                context.metrics().budgetRefused();
                continue;
            }
            sendCopy(p, leaf, connections.nextRequestId(), SubRequestTrace.Kind.BACKUP, backupPriority, null);
        }
    }

    /** The tied delay passed: the second copy of each partition not answered yet, tagged with its twin. */
    private void sendTwins() {
        hedgeTimer = null;
        for (int p = 0; p < partitions && phase == Phase.QUERY; p++) {
            int leaf = twinLeaf[p];
            if (answered[p] || hedged[p] || leaf < 0 || (triedLeaves[p] & (1L << leaf)) != 0
                    || !connections.isReady(leaf) || outstanding[p] == 0) {
                continue;
            }
            hedged[p] = true;
            context.metrics().tiedPairSent();
            sendCopy(p, leaf, twinRequestId[p], SubRequestTrace.Kind.TWIN, priority,
                    twinOf(firstLeaf[p], firstRequestId[p]));
        }
    }

    /**
     * The tied delay: about two network round trips to the slowest leaf, so a first copy that starts
     * at once can cancel its twin before the twin is even sent.
     */
    private long tiedDelayNanos() {
        long network = 0;
        for (int leaf = 0; leaf < context.roundTrip().leaves(); leaf++) {
            long leafNetwork = context.roundTrip().networkNanos(leaf);
            if (leafNetwork == RoundTrip.UNKNOWN) {
                network = RoundTrip.UNKNOWN; // not measured yet: the longest tied delay
                break;
            }
            network = Math.max(network, leafNetwork);
        }
        return RoundTrip.tiedDelayNanos(context.cluster().config().hedge(), network, network);
    }

    private Twin twinOf(int leaf, long requestId) {
        return Twin.newBuilder()
                .setLeafAddress(context.cluster().leaf(leaf).name())
                .setRequestId(requestId)
                .build();
    }

    private int chooseReplica(int partition, long excludedLeaves) {
        return context.policy().chooseReplica(partition, context.cluster().assignment().replicasOf(partition),
                connections, excludedLeaves);
    }

    private void noReplica(int partition) {
        if (failures[partition] == null) {
            failures[partition] = new PartitionError(partition, PartitionError.Kind.UNAVAILABLE, null,
                    "no replica of partition " + partition + " is reachable");
            context.metrics().subRequestFailed(SubRequestError.NO_REPLICA);
        }
        partitionFailed();
    }

    private void sendCopy(int partition, int leaf, long requestId, SubRequestTrace.Kind kind, Priority priority,
            Twin twin) {
        long now = context.ticker().nanoTime();
        long budgetNanos = deadlineNanos - now;
        if (budgetNanos <= 0) {
            return; // the deadline task ends the phase
        }
        LeafConnection connection = connections.leaf(leaf);
        ShardCall call = new ShardCall(this, partition, connection, requestId, kind, priority, now);
        context.metrics().subRequestSent(kind);
        triedLeaves[partition] |= 1L << leaf;
        outstanding[partition]++;
        calls.add(call);
        io.hedgerow.common.wire.proto.SearchRequest.Builder wire = wirePrototype.toBuilder()
                .setRequestId(requestId)
                .setPartition(partition)
                .setBudgetNanos(budgetNanos);
        if (priority != this.priority) {
            wire.setPriority(priority);
        }
        if (twin != null) {
            wire.setTwin(twin);
        }
        connection.send(call, wire.build());
    }

    void onAnswer(ShardCall call, SearchResponse response) {
        call.markDone();
        long now = context.ticker().nanoTime();
        call.noteAnswer(now, response.getStatus());
        if (phase != Phase.QUERY) {
            return;
        }
        int partition = call.partition();
        outstanding[partition]--;
        switch (response.getStatus()) {
            case OK -> {
                long roundTripNanos = now - call.sentNanos();
                long leafNanos = response.getQueueNanos() + response.getServiceNanos();
                call.connection().status().answered(roundTripNanos, leafNanos);
                // Only work done says the leaf is alive and how far it got: a busy or expired answer
                // comes from a leaf that may be stalled, and jumps its queue.
                call.connection().progress().done(now, call.sentNanos(), call.priority());
                context.metrics().subRequestAnswered(call.leaf(), roundTripNanos);
                context.hedgeDelay().record(requestClass, roundTripNanos);
                context.roundTrip().record(call.leaf(), roundTripNanos, leafNanos);
                if (!answered[partition]) {
                    answered[partition] = true;
                    answers[partition] = response;
                    answeredBy[partition] = call.leaf();
                    answeredCount++;
                    call.markUsed();
                    if (call.kind() == SubRequestTrace.Kind.BACKUP) {
                        context.metrics().backupWon();
                    }
                    cancelOtherCopies(call, now);
                    if (canaryPhase) {
                        canaryDone();
                    }
                }
                if (phase == Phase.QUERY && !canaryPhase
                        && (answeredCount + failedCount == partitions || goodEnough(now))) {
                    endQueryPhase();
                }
            }
            case BAD_QUERY -> fail(RequestError.BAD_QUERY, new SearchException(SearchException.Kind.BAD_QUERY, response.getError()));
            case BUSY -> retryOrGiveUp(call, SubRequestError.BUSY,
                    new PartitionError(partition, PartitionError.Kind.BUSY, leafName(call), response.getError()));
            case NOT_ASSIGNED -> retryOrGiveUp(call, SubRequestError.NOT_ASSIGNED,
                    new PartitionError(partition, PartitionError.Kind.UNAVAILABLE, leafName(call), response.getError()));
            case EXPIRED -> retryOrGiveUp(call, SubRequestError.EXPIRED,
                    new PartitionError(partition, PartitionError.Kind.TIMED_OUT, leafName(call), response.getError()));
            case CANCELLED -> {
                // Dropped by its leaf because its tied twin started: the twin answers, unless it failed too.
                if (!answered[partition] && outstanding[partition] == 0) {
                    retryOrGiveUp(call, SubRequestError.FAILED, new PartitionError(partition,
                            PartitionError.Kind.FAILED, leafName(call), "dropped for a tied copy that did not answer"));
                }
            }
            default -> retryOrGiveUp(call, SubRequestError.FAILED,
                    new PartitionError(partition, PartitionError.Kind.FAILED, leafName(call), response.getError()));
        }
    }

    void onConnectionLost(ShardCall call, String reason) {
        call.markDone();
        call.noteLost(context.ticker().nanoTime());
        if (phase != Phase.QUERY) {
            return;
        }
        outstanding[call.partition()]--;
        if (canaryPhase) {
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(context.ticker().nanoTime() - call.sentNanos());
            dangerous(Blocklist.Reason.CANARY_CONNECTION_LOST, "was out on leaf " + leafName(call)
                    + " when the connection dropped (" + reason + ") after " + elapsedMillis + " ms");
            return;
        }
        retryOrGiveUp(call, SubRequestError.CONNECTION, new PartitionError(call.partition(),
                PartitionError.Kind.UNAVAILABLE, leafName(call), reason));
    }

    private static String leafName(QueryCall call) {
        return call.connection().status().name();
    }

    private void retryOrGiveUp(ShardCall call, SubRequestError kind, PartitionError error) {
        int partition = call.partition();
        call.connection().status().failed(error.detail());
        context.metrics().subRequestFailed(kind);
        failures[partition] = error;
        if (answered[partition] || outstanding[partition] > 0) {
            return; // another copy is still out, or already answered
        }
        if (retries[partition] < MAX_RETRIES && error.kind() != PartitionError.Kind.TIMED_OUT) {
            sendRetry(partition);
        } else {
            partitionFailed();
        }
    }

    private void partitionFailed() {
        failedCount++;
        if (canaryPhase) {
            canaryDone(); // an ordinary failure, not a crash: the query goes on
        } else if (answeredCount + failedCount == partitions) {
            endQueryPhase();
        }
    }

    /**
     * The winner answered: cancels the partition's other copies. A backup that won hides how slow
     * the copy it beat was, so that copy's time so far goes into the hedge delay's window as a
     * lower bound of its latency; otherwise the window would forget exactly the slow answers that
     * hedging exists for, and the delay would drift down.
     */
    private void cancelOtherCopies(ShardCall winner, long now) {
        int partition = winner.partition();
        if (outstanding[partition] == 0) {
            return;
        }
        for (ShardCall call : calls) {
            if (call.partition() == partition && !call.isDone()) {
                outstanding[partition]--;
                if (winner.kind() == SubRequestTrace.Kind.BACKUP) {
                    context.hedgeDelay().record(requestClass, now - call.sentNanos());
                }
                if (hedgeMode == HedgeMode.TIED) {
                    call.markTiedLoser();
                }
                cancel(call);
            }
        }
    }

    private void cancel(QueryCall call) {
        call.markCancelled();
        if (call.connection().cancel(call)) {
            context.metrics().cancelSent();
        }
    }

    /**
     * The leaf's answer to a cancelled sub-request, after the query may be done: says whether the
     * cancel came in time, and for a tied pair whether both copies ran.
     */
    void onAnswerAfterCancel(QueryCall call, Status status, boolean cutShort) {
        CancelOutcome outcome = switch (status) {
            case CANCELLED, BUSY, EXPIRED -> CancelOutcome.DROPPED_QUEUED;
            case OK -> cutShort ? CancelOutcome.STOPPED_RUNNING : CancelOutcome.TOO_LATE;
            default -> null;
        };
        if (outcome == null) {
            return;
        }
        context.metrics().cancelled(outcome);
        if (status == Status.OK && call instanceof ShardCall shard && shard.tiedLoser()) {
            context.metrics().tiedBothRan();
        }
    }

    private void endQueryPhase() {
        cancelTimer(hedgeTimer);
        cancelTimer(canaryTimer);
        cancelTimer(cutoffTimer);
        cancelAll(calls);
        if (answeredCount == 0) {
            boolean timedOut = failedCount < partitions;
            fail(timedOut ? RequestError.TIMED_OUT : RequestError.UNAVAILABLE, new SearchException(
                    timedOut ? SearchException.Kind.TIMED_OUT : SearchException.Kind.UNAVAILABLE, describeMissing()));
            return;
        }
        context.tail().cutoff().record(context.ticker().nanoTime() - startNanos);
        if (cutOff) {
            context.metrics().cutOff();
        }
        merged = HitMerger.merge(answers, request.k());
        if (merged.isEmpty() || !(request.snippets() || request.storedFields())) {
            complete();
            return;
        }
        phase = Phase.FETCH;
        details = new FetchedDoc[merged.size()];
        fetchTriedLeaves = new long[merged.size()];
        fetchSends = new byte[merged.size()];
        fetchFailures = new String[merged.size()];
        fetches = new ArrayList<>(4);
        int[] all = new int[merged.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        context.metrics().subRequestsNeeded(RootMetrics.Phase.FETCH, sendFetches(all));
        if (fetchesOutstanding == 0) {
            complete();
        }
    }

    // ---------------------------------------------------------------- fetch phase

    /** Fetches the given merged hits, grouped into one request per leaf; returns the number of leaves. */
    private int sendFetches(int[] hits) {
        Map<Integer, List<Integer>> byLeaf = new LinkedHashMap<>();
        for (int hit : hits) {
            int partition = merged.get(hit).partition();
            int leaf = fetchLeaf(hit, partition);
            if (leaf < 0) {
                if (fetchFailures[hit] == null) {
                    fetchFailures[hit] = "no replica of partition " + partition + " is reachable";
                }
                continue;
            }
            byLeaf.computeIfAbsent(leaf, l -> new ArrayList<>()).add(hit);
        }
        long now = context.ticker().nanoTime();
        long budgetNanos = deadlineNanos - now;
        if (budgetNanos <= 0) {
            return byLeaf.size();
        }
        for (Map.Entry<Integer, List<Integer>> group : byLeaf.entrySet()) {
            int leaf = group.getKey();
            int[] positions = group.getValue().stream().mapToInt(Integer::intValue).toArray();
            FetchRequest.Builder fetch = FetchRequest.newBuilder()
                    .setQuery(request.query())
                    .setBudgetNanos(budgetNanos)
                    .setPriority(priority)
                    .setSnippets(request.snippets())
                    .setStoredFields(request.storedFields());
            for (int position : positions) {
                MergedHit hit = merged.get(position);
                fetch.addItems(FetchItem.newBuilder().setPartition(hit.partition()).setDoc(hit.hit().getDoc()));
                fetchTriedLeaves[position] |= 1L << leaf;
                fetchSends[position]++;
            }
            LeafConnection connection = connections.leaf(leaf);
            FetchCall call = new FetchCall(this, connection, connections.nextRequestId(), positions, now);
            fetches.add(call);
            fetchesOutstanding++;
            context.metrics().subRequestSent(SubRequestTrace.Kind.FETCH);
            connection.send(call, fetch.setRequestId(call.requestId()).build());
        }
        return byLeaf.size();
    }

    /** The leaf to fetch a hit from: the one that answered its partition if still ready, else a replica. */
    private int fetchLeaf(int hit, int partition) {
        int preferred = answeredBy[partition];
        if ((fetchTriedLeaves[hit] & (1L << preferred)) == 0 && connections.isReady(preferred)) {
            return preferred;
        }
        return context.policy().chooseReplica(partition, context.cluster().assignment().replicasOf(partition),
                connections, fetchTriedLeaves[hit]);
    }

    void onFetched(FetchCall call, FetchResponse response) {
        call.markDone();
        call.noteAnswer(context.ticker().nanoTime(), response.getStatus());
        if (phase != Phase.FETCH) {
            return;
        }
        fetchesOutstanding--;
        if (response.getStatus() == Status.OK && response.getDocsCount() == call.hits().length) {
            call.markUsed();
            for (int i = 0; i < call.hits().length; i++) {
                details[call.hits()[i]] = response.getDocs(i);
            }
        } else {
            context.metrics().subRequestFailed(response.getStatus() == Status.BUSY ? SubRequestError.BUSY : SubRequestError.FAILED);
            retryFetch(call, call.connection().status().address() + ": " + response.getStatus().name().toLowerCase()
                    + (response.getError().isEmpty() ? "" : " (" + response.getError() + ")"));
        }
        if (fetchesOutstanding == 0) {
            complete();
        }
    }

    void onFetchLost(FetchCall call, String reason) {
        call.markDone();
        call.noteLost(context.ticker().nanoTime());
        if (phase != Phase.FETCH) {
            return;
        }
        fetchesOutstanding--;
        context.metrics().subRequestFailed(SubRequestError.CONNECTION);
        retryFetch(call, call.connection().status().address() + ": " + reason);
        if (fetchesOutstanding == 0) {
            complete();
        }
    }

    private void retryFetch(FetchCall call, String reason) {
        List<Integer> again = new ArrayList<>();
        for (int hit : call.hits()) {
            fetchFailures[hit] = reason;
            if (fetchSends[hit] < MAX_FETCH_SENDS) {
                again.add(hit);
            }
        }
        if (!again.isEmpty()) {
            sendFetches(again.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    // ---------------------------------------------------------------- the end

    private void complete() {
        phase = Phase.DONE;
        cancelTimer(deadlineTimer);
        if (fetches != null) {
            cancelAll(fetches);
        }
        long tookNanos = context.ticker().nanoTime() - startNanos;
        List<PartitionError> errors = new ArrayList<>(0);
        long totalHits = 0;
        boolean exact = answeredCount == partitions;
        for (int p = 0; p < partitions; p++) {
            if (answered[p]) {
                totalHits += answers[p].getTotalHits();
                exact &= answers[p].getTotalHitsExact();
            } else {
                errors.add(missingReason(p));
            }
        }
        List<Hit> hits = new ArrayList<>(merged.size());
        for (int i = 0; i < merged.size(); i++) {
            MergedHit hit = merged.get(i);
            FetchedDoc doc = details == null ? null : details[i];
            if (details != null && doc == null) {
                String reason = fetchFailures[i] != null ? fetchFailures[i]
                        : "no answer within " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos - startNanos) + " ms";
                errors.add(new PartitionError(hit.partition(), PartitionError.Kind.FETCH_FAILED, null,
                        "details of hit " + hit.hit().getId() + ": " + reason));
            }
            hits.add(new Hit(hit.hit().getId(), hit.hit().getScore(), hit.partition(), fields(doc),
                    doc == null || doc.getSnippet().isEmpty() ? null : doc.getSnippet()));
        }
        Coverage coverage = new Coverage(partitions, answeredCount, context.cluster().docsFraction(answered));
        SearchResult result = new SearchResult(hits,
                new TotalHits(totalHits, exact ? TotalHits.Relation.EQUAL_TO : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO),
                tookNanos, coverage, errors, request.explain() ? trace() : List.of(), CacheStatus.OFF);
        SearchResult served = context.tail().served(run, result, canaryPassed);
        context.metrics().searchFinished(tookNanos, served.tainted());
        promise.complete(served);
    }

    private static Map<String, String> fields(FetchedDoc doc) {
        if (doc == null || doc.getFieldsCount() == 0) {
            return Map.of();
        }
        Map<String, String> ordered = new LinkedHashMap<>();
        for (StoredField field : doc.getFieldsList()) {
            ordered.putIfAbsent(field.getName(), field.getValue());
        }
        return Collections.unmodifiableMap(ordered);
    }

    private List<SubRequestTrace> trace() {
        List<SubRequestTrace> trace = new ArrayList<>(calls.size() + (fetches == null ? 0 : fetches.size()));
        for (ShardCall call : calls) {
            trace.add(call.trace(startNanos));
        }
        if (fetches != null) {
            for (FetchCall call : fetches) {
                trace.add(call.trace(-1, startNanos));
            }
        }
        return trace;
    }

    /** The query failed as a whole; the cache may still have a tainted result that covers more than nothing. */
    private void fail(RequestError kind, SearchException exception) {
        phase = Phase.DONE;
        cancelTimer(deadlineTimer);
        cancelTimer(hedgeTimer);
        cancelTimer(canaryTimer);
        cancelTimer(cutoffTimer);
        cancelAll(calls);
        long tookNanos = context.ticker().nanoTime() - startNanos;
        SearchResult cached = context.tail().failed(run, exception, tookNanos);
        if (cached != null) {
            context.metrics().searchFinished(tookNanos, cached.tainted());
            promise.complete(cached);
        } else {
            context.metrics().searchFailed(kind);
            promise.completeExceptionally(exception);
        }
    }

    private static void cancelTimer(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void cancelAll(List<? extends QueryCall> outstandingCalls) {
        for (QueryCall call : outstandingCalls) {
            if (!call.isDone()) {
                cancel(call);
            }
        }
    }

    /** Why a partition has no answer: its last failure, or the deadline if a copy was still out. */
    private PartitionError missingReason(int partition) {
        if (outstanding[partition] == 0 && failures[partition] != null) {
            return failures[partition];
        }
        if (cutOff) {
            return new PartitionError(partition, PartitionError.Kind.CANCELLED, null, "still searching at the "
                    + "good-enough cutoff of " + TimeUnit.NANOSECONDS.toMillis(cutoffNanos) + " ms, when the answered "
                    + "partitions held " + percent(context.cluster().docsFraction(answered)) + " of the documents (min_coverage "
                    + percent(run.minCoverage()) + ")");
        }
        return new PartitionError(partition, PartitionError.Kind.TIMED_OUT, null,
                "no answer within " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos - startNanos) + " ms");
    }

    private static String percent(double fraction) {
        return String.format(java.util.Locale.ROOT, "%.1f%%", fraction * 100);
    }

    private String describeMissing() {
        Set<String> reasons = new LinkedHashSet<>();
        for (int p = 0; p < partitions; p++) {
            reasons.add(missingReason(p).detail());
        }
        return "no partition answered: " + String.join("; ", reasons);
    }
}
