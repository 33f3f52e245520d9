package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.api.Highlight;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.HighlightFieldSpec;
import io.hedgerow.common.wire.proto.HighlightSpec;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.merge.HitMerger.MergedHit;
import io.hedgerow.root.metrics.RootMetrics.SubRequestError;
import io.hedgerow.root.metrics.RootMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fetch phase (when the request wants stored fields or snippets): the merged hits' details,
 * one fetch per leaf for the hits it holds, preferring the leaf that answered their partition.
 * Tail-tolerant like the query phase: when the search hedges, a fetch still out after the fetch
 * phase's own hedge delay (learnt from fetch latency) gets a backup on other replicas for its hits
 * that have no details yet, charged to the same budget, and the first answer per hit wins (a fetch
 * whose hits all came from elsewhere is cancelled). A failed fetch is retried once per hit on
 * other replicas. Hits are named by document id, and an answer is used only for the document it
 * names: a replica that does not hold the document fails that hit, which is tried elsewhere. A
 * hit whose details cannot be had by the deadline keeps its id and score, and the result notes it.
 */
public final class FetchPhase {
    /** Retries per hit after its fetch failed. */
    static final int MAX_RETRIES = 1;

    private final RunContext ctx;
    private final Outbox out;
    private final QuerySlots slots;
    private final RunTimers timers;
    private final SearchRun run;
    private final List<HitSlot> hits;
    private final List<FetchCopy> copies = new ArrayList<>(4);
    private int round;
    private long delayNanos;
    private final RefusedBackups refusedBackups = new RefusedBackups();
    /** Set by {@link #send} when the budget refused a group. */
    private boolean refusedInSend;

    FetchPhase(RunContext ctx, Outbox out, QuerySlots slots, RunTimers timers, SearchRun run, List<MergedHit> merged) {
        this.ctx = ctx;
        this.out = out;
        this.slots = slots;
        this.timers = timers;
        this.run = run;
        this.hits = new ArrayList<>(merged.size());
        for (int i = 0; i < merged.size(); i++) {
            hits.add(new HitSlot(i, merged.get(i)));
        }
    }

    /** The merged hits, in rank order, with their details as fetched. */
    List<HitSlot> hits() {
        return hits;
    }

    void start(long nowNanos) {
        out.countNeeded(RootMetrics.Phase.FETCH, send(hits, SubRequestTrace.Kind.FETCH, ctx.priority, nowNanos));
        if (done()) {
            run.finish(nowNanos);
            return;
        }
        if (ctx.hedgeRounds() > 0) {
            delayNanos = ctx.fetchHedgeDelayNanos();
            timers.arm(RunTimers.Timer.FETCH_HEDGE, nowNanos + delayNanos);
        }
    }

    /**
     * Fetches {@code batch}, one request per leaf.
     *
     * @return the number of fetches sent
     */
    private int send(List<HitSlot> batch, SubRequestTrace.Kind kind, Priority priority, long nowNanos) {
        return send(batch, kind, priority, true, nowNanos);
    }

    /** @param charged whether a retry is charged to the budget (not when it replaces a copy lost with its leaf) */
    private int send(List<HitSlot> batch, SubRequestTrace.Kind kind, Priority priority, boolean charged,
            long nowNanos) {
        Map<Integer, List<HitSlot>> byLeaf = new LinkedHashMap<>();
        for (HitSlot hit : batch) {
            int leaf = leafFor(hit, kind);
            if (leaf < 0) {
                if (hit.failure() == null) {
                    hit.failed("no replica of partition " + hit.partition() + " is reachable");
                }
                continue;
            }
            byLeaf.computeIfAbsent(leaf, l -> new ArrayList<>()).add(hit);
        }
        long budgetNanos = ctx.leafBudgetNanos(nowNanos);
        if (budgetNanos <= 0) {
            return 0;
        }
        int sent = 0;
        for (Map.Entry<Integer, List<HitSlot>> group : byLeaf.entrySet()) {
            boolean allowed = switch (kind) {
                case FETCH_BACKUP -> ctx.shared.budget().tryBackup();
                case FETCH_RETRY -> !charged || ctx.shared.budget().tryRetry();
                default -> true;
            };
            if (!allowed) {
                ctx.metrics().budgetRefused();
                refusedInSend = true;
                continue;
            }
            if (kind == SubRequestTrace.Kind.FETCH_BACKUP) {
                group.getValue().forEach(HitSlot::hedged);
            }
            int leaf = group.getKey();
            FetchCopy copy = new FetchCopy(leaf, ctx.requestIds.getAsLong(), kind, priority, nowNanos, group.getValue());
            FetchRequest.Builder wire = FetchRequest.newBuilder()
                    .setRequestId(copy.requestId())
                    .setQuery(ctx.request.query())
                    .setBudgetNanos(budgetNanos)
                    .setPriority(priority)
                    .setSnippets(ctx.request.snippets())
                    .setStoredFields(ctx.request.storedFields())
                    .setLogRequestId(ctx.tag.requestId());
            if (ctx.request.fields() != null) {
                wire.setChooseFields(true).addAllFields(ctx.request.fields());
            }
            if (ctx.request.highlight() != null) {
                wire.setHighlight(highlightSpec(ctx.request.highlight()));
            }
            if (ctx.request.lang() != null) {
                wire.setLang(ctx.request.lang());
            }
            for (HitSlot hit : copy.hits()) {
                hit.sent(leaf);
                wire.addItems(FetchItem.newBuilder().setPartition(hit.partition()).setDoc(hit.hit().hit().getDoc())
                        .setId(hit.id()));
            }
            copies.add(copy);
            out.count(kind);
            out.send(copy, wire.build());
            sent++;
        }
        return sent;
    }

    /** The leaf that answered the hit's partition, while ready and not asked yet; else a replica not asked yet. */
    private int leafFor(HitSlot hit, SubRequestTrace.Kind kind) {
        boolean preferAnswering = kind == SubRequestTrace.Kind.FETCH;
        int preferred = slots.answeredBy(slots.slot(hit.partition()));
        if (preferAnswering && preferred >= 0 && !hit.triedLeaves().contains(preferred)
                && ctx.leaves.isReady(preferred)) {
            return preferred;
        }
        // A backup races the fetch out: from an in-sync replica only, as the query phase's backups.
        return kind != SubRequestTrace.Kind.FETCH_BACKUP
                ? ctx.chooseReplica(hit.partition(), hit.triedLeaves())
                : ctx.chooseInSyncReplica(hit.partition(), hit.triedLeaves());
    }

    void onFetched(FetchCopy copy, FetchResponse response, long nowNanos) {
        copy.noteAnswer(nowNanos, response.getStatus());
        copyDone(copy);
        String leaf = ctx.leafName(copy.leaf());
        if (response.getStatus() == Status.OK && response.getDocsCount() == copy.hits().size()) {
            ctx.shared.fetchDelay().record(ctx.requestClass, nowNanos - copy.sentNanos(), nowNanos);
            ctx.metrics().fetchAnswered(copy.leaf(), nowNanos - copy.sentNanos(), response.getQueueNanos(),
                    response.getServiceNanos(), response.getCpuNanos());
            List<HitSlot> notThere = new ArrayList<>(0);
            boolean used = false;
            for (int i = 0; i < copy.hits().size(); i++) {
                HitSlot hit = copy.hits().get(i);
                FetchedDoc doc = response.getDocs(i);
                if (!doc.getId().equals(hit.id())) {
                    hit.failed(leaf + ": no document " + hit.id() + " in partition " + hit.partition());
                    notThere.add(hit);
                } else if (!hit.fetched()) {
                    hit.fill(doc);
                    used = true;
                }
            }
            if (used) {
                copy.markUsed();
                if (copy.kind() == SubRequestTrace.Kind.FETCH_BACKUP) {
                    ctx.metrics().backupWon();
                }
            }
            cancelRedundant();
            retry(notThere, nowNanos);
        } else {
            ctx.metrics().subRequestFailed(response.getStatus() != Status.BUSY ? SubRequestError.FAILED
                    : ctx.shared.cluster().leaf(copy.leaf()).isDraining() ? SubRequestError.DRAINING : SubRequestError.BUSY);
            failed(copy, leaf + ": " + response.getStatus().name().toLowerCase(Locale.ROOT)
                    + (response.getError().isEmpty() ? "" : " (" + response.getError() + ")"), nowNanos);
        }
        finishIfDone(nowNanos);
    }

    void onLost(FetchCopy copy, String reason, long nowNanos) {
        copy.noteLost(nowNanos);
        copyDone(copy);
        ctx.metrics().subRequestFailed(SubRequestError.CONNECTION);
        // Lost with its leaf, the fetch did no work: its retry adds no load, and is not charged.
        failed(copy, ctx.leafName(copy.leaf()) + ": " + reason, false, nowNanos);
        finishIfDone(nowNanos);
    }

    private void failed(FetchCopy copy, String reason, long nowNanos) {
        failed(copy, reason, true, nowNanos);
    }

    private void failed(FetchCopy copy, String reason, boolean charged, long nowNanos) {
        List<HitSlot> again = new ArrayList<>(copy.hits().size());
        for (HitSlot hit : copy.hits()) {
            if (!hit.fetched()) {
                hit.failed(reason);
                again.add(hit);
            }
        }
        retry(again, charged, nowNanos);
    }

    /** Hits without details and with no copy out: once more, on replicas not asked yet. */
    private void retry(List<HitSlot> failed, long nowNanos) {
        retry(failed, true, nowNanos);
    }

    private void retry(List<HitSlot> failed, boolean charged, long nowNanos) {
        List<HitSlot> again = new ArrayList<>(failed.size());
        for (HitSlot hit : failed) {
            if (!hit.fetched() && hit.out() == 0 && hit.retries() < MAX_RETRIES) {
                hit.retried();
                again.add(hit);
            }
        }
        if (!again.isEmpty()) {
            send(again, SubRequestTrace.Kind.FETCH_RETRY, ctx.priority, charged, nowNanos);
        }
    }

    /** A hedge round: the hits still waiting on their fetch get a backup on replicas not asked yet. */
    void onHedgeTimer(long nowNanos) {
        if (refusedBackups.startsRound()) {
            round++;
        }
        List<HitSlot> late = new ArrayList<>();
        for (HitSlot hit : hits) {
            if (!hit.fetched() && hit.out() > 0 && hit.backups() < round) {
                late.add(hit);
            }
        }
        if (late.isEmpty()) {
            return;
        }
        refusedInSend = false;
        send(late, SubRequestTrace.Kind.FETCH_BACKUP, ctx.backupPriority, nowNanos);
        if (refusedInSend) {
            timers.arm(RunTimers.Timer.FETCH_HEDGE, nowNanos + refusedBackups.retryAfterNanos(delayNanos));
        } else if (round < ctx.hedgeRounds()) {
            timers.arm(RunTimers.Timer.FETCH_HEDGE, nowNanos + delayNanos);
        }
    }

    /** Cancels the fetches whose every hit has its details from another. */
    private void cancelRedundant() {
        for (FetchCopy copy : copies) {
            if (!copy.done() && copy.redundant()) {
                out.cancel(copy);
                copyDone(copy);
            }
        }
    }

    private static void copyDone(FetchCopy copy) {
        for (HitSlot hit : copy.hits()) {
            hit.copyDone();
        }
    }

    /** Every hit has its details, or has no fetch out that could bring them. */
    boolean done() {
        for (HitSlot hit : hits) {
            if (!hit.fetched() && hit.out() > 0) {
                return false;
            }
        }
        return true;
    }

    private void finishIfDone(long nowNanos) {
        if (done()) {
            run.finish(nowNanos);
        }
    }

    /** The search is over: cancels the fetches still out. */
    void end() {
        timers.disarm(RunTimers.Timer.FETCH_HEDGE);
        for (FetchCopy copy : copies) {
            out.cancel(copy);
        }
    }

    /** The request's highlight as the leaves read it. */
    static HighlightSpec highlightSpec(Highlight highlight) {
        HighlightSpec.Builder spec = HighlightSpec.newBuilder().setPreTag(highlight.preTag()).setPostTag(highlight.postTag());
        highlight.fields().forEach((name, field) -> spec.addFields(HighlightFieldSpec.newBuilder().setField(name)
                .setNumberOfFragments(field.numberOfFragments()).setFragmentSize(field.fragmentSize())));
        return spec.build();
    }
}
