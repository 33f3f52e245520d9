package io.hedgerow.root.merge;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.Filter;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import io.hedgerow.common.wire.proto.AfterValue;
import io.hedgerow.common.wire.proto.AggregationRange;
import io.hedgerow.common.wire.proto.DateHistogramAggregation;
import io.hedgerow.common.wire.proto.HistogramAggregation;
import io.hedgerow.common.wire.proto.RangeAggregation;
import io.hedgerow.common.wire.proto.StatsAggregation;
import io.hedgerow.common.wire.proto.TermsAggregation;
import io.hedgerow.common.wire.proto.BoolFilter;
import io.hedgerow.common.wire.proto.RangeFilter;
import io.hedgerow.common.wire.proto.TermsFilter;

/**
 * The filter, sort, search_after, language and aggregations of an API request as the leaves' wire request holds
 * them (the fields the root copies onto every partition's sub-request). Pure.
 */
public final class WireShape {
    private WireShape() {
    }

    /** A wire request holding only {@code request}'s filter, sort, search_after and lang, to merge into a prototype. */
    public static io.hedgerow.common.wire.proto.SearchRequest of(SearchRequest request) {
        io.hedgerow.common.wire.proto.SearchRequest.Builder wire = io.hedgerow.common.wire.proto.SearchRequest.newBuilder();
        if (request.filter() != null) {
            wire.setFilter(filter(request.filter()));
        }
        for (SortField key : request.sort()) {
            wire.addSort(io.hedgerow.common.wire.proto.SortField.newBuilder().setField(key.field())
                    .setDescending(key.descending()));
        }
        if (request.searchAfter() != null) {
            for (Object value : request.searchAfter()) {
                wire.addSearchAfter(value == null ? AfterValue.newBuilder().setMissing(true).build()
                        : AfterValue.newBuilder().setText(String.valueOf(value)).build());
            }
        }
        if (request.lang() != null) {
            wire.setLang(request.lang());
        }
        if (!request.aggs().isEmpty()) {
            for (java.util.Map.Entry<String, Aggregation> agg : request.aggs().entrySet()) {
                wire.addAggs(aggregation(agg.getKey(), agg.getValue()));
            }
        }
        return wire.build();
    }

    /** One named aggregation as the leaves read it. */
    public static io.hedgerow.common.wire.proto.Aggregation aggregation(String name, Aggregation agg) {
        var wire = io.hedgerow.common.wire.proto.Aggregation.newBuilder().setName(name).setField(agg.field());
        switch (agg) {
            case Aggregation.Terms terms -> {
                TermsAggregation.Builder wireTerms = TermsAggregation.newBuilder().setShardSize(terms.shardSize())
                        .setOrder(io.hedgerow.common.wire.proto.TermsOrder.valueOf(terms.order().name()))
                        .setZeroCounts(terms.minDocCount() == 0);
                switch (terms.missing()) {
                    case null -> { }
                    case String text -> wireTerms.setMissingText(text);
                    case Long number -> wireTerms.setMissingLong(number);
                    case Double number -> wireTerms.setMissingDouble(number);
                    default -> throw new IllegalArgumentException("missing: " + terms.missing() + " (expected: String, Long or Double)");
                }
                wire.setTerms(wireTerms);
            }
            case Aggregation.Range range -> {
                RangeAggregation.Builder ranges = RangeAggregation.newBuilder();
                for (Aggregation.RangeBucket r : range.ranges()) {
                    AggregationRange.Builder wireRange = AggregationRange.newBuilder();
                    if (r.from() != null) {
                        wireRange.setFrom(r.from());
                    }
                    if (r.to() != null) {
                        wireRange.setTo(r.to());
                    }
                    ranges.addRanges(wireRange);
                }
                wire.setRange(ranges);
            }
            case Aggregation.Histogram histogram -> wire.setHistogram(HistogramAggregation.newBuilder()
                    .setInterval(histogram.interval()).setOffset(histogram.offset()));
            case Aggregation.DateHistogram dates -> wire.setDateHistogram(DateHistogramAggregation.newBuilder()
                    .setFixedIntervalMillis(dates.fixedIntervalMillis())
                    .setCalendarInterval(dates.calendarInterval() == null ? "" : dates.calendarInterval().label())
                    // Empty for UTC, as an older root sent: the leaves' default.
                    .setTimeZone(dates.timeZone().equals(java.time.ZoneOffset.UTC) ? "" : dates.timeZone().getId())
                    .setOffsetMillis(dates.offsetMillis()));
            case Aggregation.Stats stats -> {
                StatsAggregation.Builder wireStats = StatsAggregation.newBuilder();
                if (stats.missing() != null) {
                    wireStats.setMissing(stats.missing());
                }
                wire.setStats(wireStats);
            }
        }
        return wire.build();
    }

    public static io.hedgerow.common.wire.proto.Filter filter(Filter filter) {
        io.hedgerow.common.wire.proto.Filter.Builder wire = io.hedgerow.common.wire.proto.Filter.newBuilder();
        switch (filter) {
            case Filter.Terms terms -> wire.setTerms(TermsFilter.newBuilder().setField(terms.field())
                    .addAllValues(terms.values()));
            case Filter.Range range -> {
                RangeFilter.Builder r = RangeFilter.newBuilder().setField(range.field());
                if (range.gte() != null) {
                    r.setGte(range.gte());
                }
                if (range.gt() != null) {
                    r.setGt(range.gt());
                }
                if (range.lte() != null) {
                    r.setLte(range.lte());
                }
                if (range.lt() != null) {
                    r.setLt(range.lt());
                }
                wire.setRange(r);
            }
            case Filter.Exists exists -> wire.setExists(exists.field());
            case Filter.Bool bool -> {
                BoolFilter.Builder b = BoolFilter.newBuilder();
                bool.must().forEach(f -> b.addMust(filter(f)));
                bool.should().forEach(f -> b.addShould(filter(f)));
                bool.mustNot().forEach(f -> b.addMustNot(filter(f)));
                wire.setBool(b);
            }
        }
        return wire.build();
    }
}
