package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.api.Coverage;
import io.hedgerow.root.api.PartitionError;
import io.hedgerow.root.api.SearchException;
import io.hedgerow.root.api.SearchRequest;
import io.hedgerow.root.api.SearchResult;
import io.hedgerow.root.api.TotalHits;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics.SubRequestError;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Scatter-gather of one query: sends one sub-request per partition to a replica the policy
 * chooses, retries a failed one once on another replica, stops at the deadline (or when the policy
 * says), cancels whatever is still out, and merges the answers.
 *
 * <p>A partition that no replica could answer is not an error of the query: the result comes back
 * with the partitions that did answer, tainted, with coverage and a reason per missing partition.
 * The query fails only when the query itself is bad or no partition answered at all.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its event loop (the loop of its
 * {@link LoopConnections}); its promise is completed exactly once, on that loop.
 */
final class Gatherer implements Runnable {
    /** Sends per partition: the first, and one retry on another replica. */
    private static final int MAX_SENDS = 2;

    private final FanOutContext context;
    private final LoopConnections connections;
    private final SearchRequest request;
    private final io.hedgerow.common.wire.proto.SearchRequest wirePrototype;
    private final long startNanos;
    private final long deadlineNanos;
    private final CompletableFuture<SearchResult> promise;

    private final int partitions;
    private final SearchResponse[] answers;
    private final boolean[] answered;
    private final long[] triedLeaves;
    private final byte[] outstanding;
    private final byte[] sends;
    private final PartitionError[] failures;
    private final List<ShardCall> calls;
    private int answeredCount;
    private int failedCount;
    private ScheduledFuture<?> deadlineTimer;
    private boolean finished;

    Gatherer(FanOutContext context, LoopConnections connections, SearchRequest request, long startNanos,
            long timeoutNanos, CompletableFuture<SearchResult> promise) {
        this.context = context;
        this.connections = connections;
        this.request = request;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + timeoutNanos;
        this.promise = promise;
        this.partitions = context.cluster().assignment().partitions();
        this.answers = new SearchResponse[partitions];
        this.answered = new boolean[partitions];
        this.triedLeaves = new long[partitions];
        this.outstanding = new byte[partitions];
        this.sends = new byte[partitions];
        this.failures = new PartitionError[partitions];
        this.calls = new ArrayList<>(partitions + 4);
        this.wirePrototype = io.hedgerow.common.wire.proto.SearchRequest.newBuilder()
                .setQuery(request.query())
                .setK(request.k())
                .setPriority(Priority.INTERACTIVE)
                .setTotalHitsThreshold(request.totalHitsThreshold())
                .setSnippets(request.snippets())
                .setStoredFields(request.storedFields())
                .build();
    }

    void start() {
        context.metrics().searchStarted();
        for (int p = 0; p < partitions && !finished; p++) {
            send(p);
        }
        if (!finished) {
            deadlineTimer = connections.loop().schedule(this, deadlineNanos - context.ticker().nanoTime(),
                    TimeUnit.NANOSECONDS);
        }
    }

    /** The deadline passed. */
    @Override
    public void run() {
        if (!finished) {
            finish();
        }
    }

    private void send(int partition) {
        int leaf = context.policy().chooseReplica(partition, context.cluster().assignment().replicasOf(partition),
                connections, triedLeaves[partition]);
        if (leaf < 0) {
            if (failures[partition] == null) {
                failures[partition] = new PartitionError(partition, PartitionError.Kind.UNAVAILABLE, null,
                        "no replica of partition " + partition + " is reachable");
                context.metrics().subRequestFailed(SubRequestError.NO_REPLICA);
            }
            partitionFailed(partition);
            return;
        }
        long now = context.ticker().nanoTime();
        long budgetNanos = deadlineNanos - now;
        if (budgetNanos <= 0) {
            return; // the deadline task finishes the query
        }
        LeafConnection connection = connections.leaf(leaf);
        ShardCall call = new ShardCall(this, partition, connection, connections.nextRequestId(), now);
        triedLeaves[partition] |= 1L << leaf;
        outstanding[partition]++;
        sends[partition]++;
        calls.add(call);
        connection.send(call, wirePrototype.toBuilder()
                .setRequestId(call.requestId())
                .setPartition(partition)
                .setBudgetNanos(budgetNanos)
                .build());
    }

    void onAnswer(ShardCall call, SearchResponse response) {
        call.markDone();
        if (finished) {
            return;
        }
        int partition = call.partition();
        outstanding[partition]--;
        long roundTripNanos = context.ticker().nanoTime() - call.sentNanos();
        String leaf = call.connection().status().address().toString();
        switch (response.getStatus()) {
            case OK -> {
                call.connection().status().answered(roundTripNanos);
                context.metrics().subRequestAnswered(call.leaf(), roundTripNanos);
                if (!answered[partition]) {
                    answered[partition] = true;
                    answers[partition] = response;
                    answeredCount++;
                    cancelOthers(partition);
                }
                if (answeredCount + failedCount == partitions) {
                    finish();
                } else if (context.policy().stopWaiting(answeredCount, partitions,
                        context.cluster().docsFraction(answered), context.ticker().nanoTime() - startNanos)) {
                    finish();
                }
            }
            case BAD_QUERY -> {
                context.metrics().searchFailed(RequestError.BAD_QUERY);
                fail(new SearchException(SearchException.Kind.BAD_QUERY, response.getError()));
            }
            case BUSY -> retryOrGiveUp(call, SubRequestError.BUSY,
                    new PartitionError(partition, PartitionError.Kind.BUSY, leaf, response.getError()));
            case NOT_ASSIGNED -> retryOrGiveUp(call, SubRequestError.NOT_ASSIGNED,
                    new PartitionError(partition, PartitionError.Kind.UNAVAILABLE, leaf, response.getError()));
            case EXPIRED, CANCELLED -> retryOrGiveUp(call, SubRequestError.EXPIRED,
                    new PartitionError(partition, PartitionError.Kind.TIMED_OUT, leaf, response.getError()));
            default -> retryOrGiveUp(call, SubRequestError.FAILED,
                    new PartitionError(partition, PartitionError.Kind.FAILED, leaf, response.getError()));
        }
    }

    void onConnectionLost(ShardCall call, String reason) {
        call.markDone();
        if (finished) {
            return;
        }
        outstanding[call.partition()]--;
        retryOrGiveUp(call, SubRequestError.CONNECTION, new PartitionError(call.partition(),
                PartitionError.Kind.UNAVAILABLE, call.connection().status().address().toString(), reason));
    }

    private void retryOrGiveUp(ShardCall call, SubRequestError kind, PartitionError error) {
        int partition = call.partition();
        call.connection().status().failed(error.detail());
        context.metrics().subRequestFailed(kind);
        failures[partition] = error;
        if (answered[partition] || outstanding[partition] > 0) {
            return; // another copy is still out, or already answered
        }
        if (sends[partition] < MAX_SENDS && error.kind() != PartitionError.Kind.TIMED_OUT) {
            context.metrics().retried();
            send(partition);
        } else {
            partitionFailed(partition);
        }
    }

    private void partitionFailed(int partition) {
        failedCount++;
        if (answeredCount + failedCount == partitions) {
            finish();
        }
    }

    private void cancelOthers(int partition) {
        if (outstanding[partition] == 0) {
            return;
        }
        for (ShardCall call : calls) {
            if (call.partition() == partition && !call.isDone()) {
                call.markDone();
                outstanding[partition]--;
                call.connection().cancel(call);
            }
        }
    }

    private void finish() {
        stop();
        long tookNanos = context.ticker().nanoTime() - startNanos;
        if (answeredCount == 0) {
            boolean timedOut = failedCount < partitions;
            context.metrics().searchFailed(timedOut ? RequestError.TIMED_OUT : RequestError.UNAVAILABLE);
            promise.completeExceptionally(new SearchException(
                    timedOut ? SearchException.Kind.TIMED_OUT : SearchException.Kind.UNAVAILABLE, describeMissing()));
            return;
        }
        List<PartitionError> errors = List.of();
        long totalHits = 0;
        boolean exact = answeredCount == partitions;
        for (int p = 0; p < partitions; p++) {
            if (answered[p]) {
                totalHits += answers[p].getTotalHits();
                exact &= answers[p].getTotalHitsExact();
            } else {
                if (errors.isEmpty()) {
                    errors = new ArrayList<>();
                }
                errors.add(missingReason(p));
            }
        }
        Coverage coverage = new Coverage(partitions, answeredCount, context.cluster().docsFraction(answered));
        SearchResult result = new SearchResult(
                HitMerger.merge(answers, request.k()),
                new TotalHits(totalHits, exact ? TotalHits.Relation.EQUAL_TO : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO),
                tookNanos, coverage, errors);
        context.metrics().searchFinished(tookNanos, result.tainted());
        promise.complete(result);
    }

    private void fail(SearchException exception) {
        stop();
        promise.completeExceptionally(exception);
    }

    /** Ends the gather: no more timers, and every sub-request still out is cancelled. */
    private void stop() {
        finished = true;
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
        }
        for (ShardCall call : calls) {
            if (!call.isDone()) {
                call.markDone();
                call.connection().cancel(call);
            }
        }
    }

    /** Why a partition has no answer: its last failure, or the deadline if a copy was still out. */
    private PartitionError missingReason(int partition) {
        if (outstanding[partition] == 0 && failures[partition] != null) {
            return failures[partition];
        }
        return new PartitionError(partition, PartitionError.Kind.TIMED_OUT, null,
                "no answer within " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos - startNanos) + " ms");
    }

    private String describeMissing() {
        Set<String> reasons = new LinkedHashSet<>();
        for (int p = 0; p < partitions; p++) {
            reasons.add(missingReason(p).detail());
        }
        return "no partition answered: " + String.join("; ", reasons);
    }
}
