package io.hedgerow.root.search;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.api.TotalHits;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.root.merge.HitMerger.MergedHit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import io.hedgerow.common.wire.proto.HighlightedField;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Puts a search's result together from its partitions and hits: totals, coverage (complete answers
 * only, so an answer cut short taints the result), what degrades it even where it covers (hits
 * whose details could not be fetched, a partition answered by an out-of-sync replica), one error per
 * partition missing or cut short and per hit without details, and the trace of every sub-request
 * when asked.
 */
final class ResultBuilder {
    private final RunContext ctx;
    private final QuerySlots slots;
    private final boolean cutOff;
    private final long cutoffNanos;

    /** @param cutOff the query phase ended at the good-enough cutoff (of {@code cutoffNanos}) */
    ResultBuilder(RunContext ctx, QuerySlots slots, boolean cutOff, long cutoffNanos) {
        this.ctx = ctx;
        this.slots = slots;
        this.cutOff = cutOff;
        this.cutoffNanos = cutoffNanos;
    }

    /**
     * @param merged the merged top k
     * @param hits   their fetch phase, or null when there was none
     * @param sent   every sub-request, in the order sent
     */
    SearchResult build(List<MergedHit> merged, List<HitSlot> hits, List<SubRequest> sent, long nowNanos) {
        List<PartitionError> errors = new ArrayList<>(0);
        long totalHits = 0;
        boolean exact = true;
        for (PartitionSlot slot : slots.all()) {
            SearchResponse answer = slot.answer();
            if (answer == null) {
                errors.add(missingReason(slot));
                exact = false;
                continue;
            }
            totalHits += answer.getTotalHits();
            exact &= answer.getTotalHitsExact() && !answer.getCutShort();
            if (answer.getCutShort()) {
                errors.add(new PartitionError(slot.partition(), PartitionError.Kind.CUT_SHORT,
                        ctx.leafName(slots.answeredBy(slot)), "stopped at its deadline with the hits found so far"));
            }
        }
        List<Hit> result = new ArrayList<>(merged.size());
        boolean fetchFailed = false;
        for (int i = 0; i < merged.size(); i++) {
            MergedHit hit = merged.get(i);
            FetchedDoc doc = hits == null ? null : hits.get(i).doc();
            if (hits != null && doc == null) {
                fetchFailed = true;
                String reason = hits.get(i).failure() != null ? hits.get(i).failure()
                        : "no answer within " + TimeUnit.NANOSECONDS.toMillis(ctx.deadlineNanos - ctx.startNanos) + " ms";
                errors.add(new PartitionError(hit.partition(), PartitionError.Kind.FETCH_FAILED, null,
                        "details of hit " + hit.hit().getId() + ": " + reason));
            }
            Map<String, List<String>> values = values(doc);
            result.add(new Hit(hit.hit().getId(), hit.hit().getScore(), hit.partition(), firstValues(values),
                    doc == null || doc.getSnippet().isEmpty() ? null : doc.getSnippet(),
                    io.hedgerow.root.merge.HitMerger.sortValues(hit.hit()), highlight(doc), multiValues(values)));
        }
        Coverage coverage = new Coverage(ctx.targets.length, slots.completeAnswers(), slots.completeDocsFraction());
        if (fetchFailed) {
            coverage = coverage.degradedBy(Coverage.Degradation.FETCH_FAILED); // hits without what was asked
        }
        if (slots.anyStaleAnswer()) {
            coverage = coverage.degradedBy(Coverage.Degradation.STALE_COPY);
        }
        // A slow search gets its trace for the slow-query log even unasked; the answer then leaves it out.
        boolean traced = ctx.request.explain() || ctx.tag.traces(nowNanos - ctx.startNanos);
        return new SearchResult(result,
                new TotalHits(totalHits, exact ? TotalHits.Relation.EQUAL_TO : TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO),
                nowNanos - ctx.startNanos, coverage, errors, traced ? trace(sent) : List.of(),
                CacheStatus.OFF, traced ? LeafTraces.of(ctx) : List.of());
    }

    /** A hit's highlighted fields in the order asked; null when none was asked or none matched (Elasticsearch leaves it out). */
    private static Map<String, List<String>> highlight(FetchedDoc doc) {
        if (doc == null || doc.getHighlightCount() == 0) {
            return null;
        }
        Map<String, List<String>> highlight = new LinkedHashMap<>();
        for (HighlightedField field : doc.getHighlightList()) {
            highlight.put(field.getField(), List.copyOf(field.getFragmentsList()));
        }
        return Collections.unmodifiableMap(highlight);
    }

    /** Why a partition has no answer: its last failure if it was given up, else still out at the end. */
    PartitionError missingReason(PartitionSlot slot) {
        if (slot.gaveUp() && slot.failure() != null) {
            return slot.failure();
        }
        if (cutOff) {
            return new PartitionError(slot.partition(), PartitionError.Kind.CANCELLED, null, "still searching at the "
                    + "good-enough cutoff of " + TimeUnit.NANOSECONDS.toMillis(cutoffNanos) + " ms, when the answered "
                    + "partitions held " + percent(slots.completeDocsFraction()) + " of the documents (min_coverage "
                    + percent(ctx.run.minCoverage()) + ")");
        }
        return new PartitionError(slot.partition(), PartitionError.Kind.TIMED_OUT, null,
                "no answer within " + TimeUnit.NANOSECONDS.toMillis(ctx.deadlineNanos - ctx.startNanos) + " ms");
    }

    /** Why no partition answered, for the failure of the whole search. */
    String describeMissing() {
        Set<String> reasons = new LinkedHashSet<>();
        for (PartitionSlot slot : slots.all()) {
            reasons.add(missingReason(slot).detail());
        }
        return "no partition answered: " + String.join("; ", reasons);
    }

    private List<SubRequestTrace> trace(List<SubRequest> sent) {
        List<SubRequestTrace> trace = new ArrayList<>(sent.size());
        for (SubRequest copy : sent) {
            trace.add(copy.trace(ctx.leafName(copy.leaf()), ctx.startNanos));
        }
        return trace;
    }

    /** Each returned field's values in the order the leaf sent them: a multi-valued field's arrive as repeated entries. */
    private static Map<String, List<String>> values(FetchedDoc doc) {
        if (doc == null || doc.getFieldsCount() == 0) {
            return Map.of();
        }
        Map<String, List<String>> ordered = new LinkedHashMap<>();
        for (StoredField field : doc.getFieldsList()) {
            ordered.computeIfAbsent(field.getName(), name -> new ArrayList<>(1)).add(field.getValue());
        }
        return ordered;
    }

    /** {@link Hit#fields()}: each field's first value. */
    private static Map<String, String> firstValues(Map<String, List<String>> values) {
        if (values.isEmpty()) {
            return Map.of();
        }
        Map<String, String> first = new LinkedHashMap<>();
        values.forEach((name, all) -> first.put(name, all.get(0)));
        return Collections.unmodifiableMap(first);
    }

    /** {@link Hit#multiValues()}: the fields with several values, each with all of them. */
    private static Map<String, List<String>> multiValues(Map<String, List<String>> values) {
        Map<String, List<String>> several = null;
        for (Map.Entry<String, List<String>> field : values.entrySet()) {
            if (field.getValue().size() > 1) {
                if (several == null) {
                    several = new LinkedHashMap<>();
                }
                several.put(field.getKey(), field.getValue());
            }
        }
        return several == null ? Map.of() : several;
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
