package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.LeafLatency;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.metrics.RootMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The body of {@code GET /metrics/leaves}: each leaf's latency histograms ({@link LeafLatency})
 * since the root started, by phase ({@code search}, {@code fetch}) and part ({@code service},
 * {@code queue}, {@code round_trip}); for each a count, a few percentiles in ms for people, and the
 * whole histogram (microseconds, HdrHistogram's compressed encoding in base64) for a load generator
 * to subtract two readings and save one phase's as {@code .hgrm} files.
 */
final class LeafLatencyReport {
    private LeafLatencyReport() {
    }

    static void write(JsonGenerator json, ClusterState cluster, List<LeafLatency.Reading> readings) throws IOException {
        json.writeStartObject();
        json.writeStringField("measures", "each leaf's OK answers since the root started: service (the leaf's own time,"
                + " from its answer), queue (the leaf's queue wait, from its answer), round_trip (sent to answered, at"
                + " the root), cpu (the leaf's thread CPU time, from its answer)");
        json.writeStringField("unit", "microseconds");
        json.writeNumberField("highest_trackable", LeafLatency.HIGHEST_MICROS);
        json.writeNumberField("significant_digits", LeafLatency.SIGNIFICANT_DIGITS);
        json.writeArrayFieldStart("leaves");
        int leaf = -1;
        RootMetrics.Phase phase = null;
        for (LeafLatency.Reading reading : readings) {
            if (reading.leaf() != leaf) {
                if (leaf >= 0) {
                    json.writeEndObject(); // the phase
                    json.writeEndObject(); // the leaf
                }
                leaf = reading.leaf();
                phase = null;
                json.writeStartObject();
                json.writeNumberField("leaf", leaf);
                json.writeStringField("address", cluster.leaf(leaf).name());
            }
            if (reading.phase() != phase) {
                if (phase != null) {
                    json.writeEndObject();
                }
                phase = reading.phase();
                json.writeObjectFieldStart(reading.phase() == RootMetrics.Phase.QUERY ? "search"
                        : reading.phase().name().toLowerCase(Locale.ROOT));
            }
            json.writeFieldName(reading.part().label());
            histogram(json, reading.histogram());
        }
        if (leaf >= 0) {
            json.writeEndObject();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static void histogram(JsonGenerator json, Histogram histogram) throws IOException {
        json.writeStartObject();
        json.writeNumberField("count", histogram.getTotalCount());
        if (histogram.getTotalCount() > 0) {
            json.writeNumberField("p50_ms", histogram.getValueAtPercentile(50) / 1000.0);
            json.writeNumberField("p99_ms", histogram.getValueAtPercentile(99) / 1000.0);
            json.writeNumberField("p99_9_ms", histogram.getValueAtPercentile(99.9) / 1000.0);
            json.writeNumberField("max_ms", histogram.getMaxValue() / 1000.0);
        }
        json.writeStringField("histogram", RequestLatency.encode(histogram));
        json.writeEndObject();
    }
}
