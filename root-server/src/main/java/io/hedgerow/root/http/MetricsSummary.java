package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.metrics.RootMetrics;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The body of {@code GET /metrics/summary}: the few numbers the console charts, as running totals
 * since the root started, read from meters the root already keeps ({@link RequestLatency}'s
 * searches by outcome, the {@code hedgerow.subrequests} counters of hedges). A chart takes two
 * readings and subtracts them: the rate, refusals, tainted answers and hedges of the interval, and
 * the percentiles of the interval's latency from the difference of the bucket counts. So the route
 * keeps no state of its own, and any number of consoles can poll it without stealing each other's
 * intervals.
 *
 * <p>The latency buckets have fixed bounds ({@link #BOUNDS_MICROS}, 10% apart), the same in every
 * reading, so they subtract; a percentile read from them is the bucket's upper bound, at most 10%
 * above the true value.
 */
final class MetricsSummary {
    /** Upper bounds of the latency buckets, in microseconds: 10 us, then 10% wider each, up to 60 s. */
    static final long[] BOUNDS_MICROS = bounds();
    private static final List<SubRequestTrace.Kind> HEDGES = List.of(SubRequestTrace.Kind.BACKUP,
            SubRequestTrace.Kind.FETCH_BACKUP, SubRequestTrace.Kind.TWIN);

    private MetricsSummary() {
    }

    static void write(JsonGenerator json, RootMetrics metrics, long nowMillis) throws IOException {
        Map<RequestLatency.Outcome, Histogram> latency = metrics.requestLatency().snapshot();
        json.writeStartObject();
        json.writeNumberField("time_ms", nowMillis);
        json.writeObjectFieldStart("searches");
        for (RequestLatency.Outcome outcome : RequestLatency.Outcome.values()) {
            json.writeNumberField(outcome.name().toLowerCase(Locale.ROOT), latency.get(outcome).getTotalCount());
        }
        json.writeEndObject();
        json.writeObjectFieldStart("hedges");
        for (SubRequestTrace.Kind kind : HEDGES) {
            Counter sent = metrics.registry().find("hedgerow.subrequests").tag("kind", kind.label()).counter();
            json.writeNumberField(kind.label(), sent == null ? 0 : (long) sent.count());
        }
        json.writeEndObject();
        json.writeObjectFieldStart("latency");
        json.writeStringField("measures", "searches answered with 200 (complete or tainted), from the first byte of"
                + " the request in to the last byte of the answer out");
        json.writeStringField("unit", "microseconds");
        json.writeArrayFieldStart("buckets");
        long[] counts = bucketCounts(latency.get(RequestLatency.Outcome.COMPLETE), latency.get(RequestLatency.Outcome.TAINTED));
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                json.writeStartObject();
                json.writeNumberField("le", BOUNDS_MICROS[i]);
                json.writeNumberField("count", counts[i]);
                json.writeEndObject();
            }
        }
        json.writeEndArray();
        json.writeEndObject();
        json.writeEndObject();
    }

    /** How many recorded values fall in each bucket: above the previous bound, at most its own. */
    static long[] bucketCounts(Histogram... histograms) {
        long[] counts = new long[BOUNDS_MICROS.length];
        for (Histogram histogram : histograms) {
            for (HistogramIterationValue value : histogram.recordedValues()) {
                int at = Arrays.binarySearch(BOUNDS_MICROS, value.getValueIteratedTo());
                int bucket = Math.min(at >= 0 ? at : -at - 1, BOUNDS_MICROS.length - 1);
                counts[bucket] += value.getCountAtValueIteratedTo();
            }
        }
        return counts;
    }

    private static long[] bounds() {
        long[] bounds = new long[200];
        int n = 0;
        for (double bound = 10; ; bound *= 1.1) {
            bounds[n++] = (long) Math.ceil(bound);
            if (bound >= RequestLatency.HIGHEST_MICROS) {
                return Arrays.copyOf(bounds, n);
            }
        }
    }
}
