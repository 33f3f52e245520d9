package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.LeafTrace;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.root.metrics.RequestLatency;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Writes response bodies straight into pooled buffers with Jackson's streaming generator: no
 * intermediate tree or string.
 */
final class JsonResponses {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private JsonResponses() {
    }

    /** Something that writes one JSON value. */
    @FunctionalInterface
    interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    static ByteBuf write(ByteBufAllocator allocator, Body body) {
        ByteBuf buffer = allocator.buffer(512);
        try (JsonGenerator json = JSON.createGenerator((java.io.OutputStream) new ByteBufOutputStream(buffer), JsonEncoding.UTF8)) {
            body.write(json);
        } catch (IOException e) {
            buffer.release();
            throw new UncheckedIOException(e);
        }
        return buffer;
    }

    static ByteBuf error(ByteBufAllocator allocator, String code, String detail) {
        return write(allocator, json -> {
            json.writeStartObject();
            json.writeStringField("error", code);
            json.writeStringField("detail", detail);
            json.writeEndObject();
        });
    }

    /**
     * The root's search latency since it started, by outcome: for each, the count, a few
     * percentiles in ms for people, and the whole histogram (microseconds, HdrHistogram's compressed
     * encoding in base64) for a load generator to subtract two readings.
     */
    static void writeRequestLatency(JsonGenerator json, Map<RequestLatency.Outcome, Histogram> latency) throws IOException {
        json.writeStartObject();
        json.writeStringField("measures", "each search from the first byte of its request in to the last byte of its"
                + " answer written, since the root started");
        json.writeStringField("unit", "microseconds");
        json.writeNumberField("highest_trackable", RequestLatency.HIGHEST_MICROS);
        json.writeNumberField("significant_digits", RequestLatency.SIGNIFICANT_DIGITS);
        for (Map.Entry<RequestLatency.Outcome, Histogram> entry : latency.entrySet()) {
            Histogram histogram = entry.getValue();
            json.writeObjectFieldStart(entry.getKey().name().toLowerCase(java.util.Locale.ROOT));
            json.writeNumberField("count", histogram.getTotalCount());
            if (histogram.getTotalCount() > 0) {
                for (double percentile : new double[] {50, 99, 99.9}) {
                    json.writeNumberField("p" + (percentile == 99.9 ? "99_9" : String.valueOf((int) percentile)) + "_ms",
                            histogram.getValueAtPercentile(percentile) / 1000.0);
                }
                json.writeNumberField("max_ms", histogram.getMaxValue() / 1000.0);
            }
            json.writeStringField("histogram", RequestLatency.encode(histogram));
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    /**
     * @param requestId the request's id, written as {@code request_id}
     * @param withTrace whether {@code trace} and {@code leaves} are written (the client asked to explain)
     */
    static ByteBuf searchResult(ByteBufAllocator allocator, SearchResult result, String requestId, boolean withTrace) {
        return write(allocator, json -> writeSearchResult(json, result, requestId, withTrace));
    }

    static void writeSearchResult(JsonGenerator json, SearchResult result, String requestId, boolean withTrace)
            throws IOException {
        json.writeStartObject();
        json.writeFieldName("took_ms");
        json.writeNumber(Math.round(result.tookNanos() / 1000.0) / 1000.0);
        json.writeObjectFieldStart("total_hits");
        json.writeNumberField("value", result.totalHits().value());
        json.writeStringField("relation", result.totalHits().relation().label());
        json.writeEndObject();
        json.writeBooleanField("tainted", result.tainted());
        json.writeBooleanField("degraded", result.degraded());
        json.writeStringField("cache", result.cache().label());
        writeCoverage(json, result.coverage());
        json.writeArrayFieldStart("hits");
        for (Hit hit : result.hits()) {
            json.writeStartObject();
            json.writeStringField("id", hit.id());
            if (Float.isNaN(hit.score())) {
                json.writeNullField("score"); // sorted by fields only: not scored, as Elasticsearch's null _score
            } else {
                json.writeNumberField("score", hit.score());
            }
            json.writeNumberField("partition", hit.partition());
            if (hit.sort() != null) {
                json.writeArrayFieldStart("sort");
                for (Object value : hit.sort()) {
                    switch (value) {
                        case null -> json.writeNull();
                        case Long l -> json.writeNumber(l);
                        case Double d -> json.writeNumber(d);
                        case Float f -> json.writeNumber(f);
                        default -> json.writeString(value.toString());
                    }
                }
                json.writeEndArray();
            }
            if (!hit.fields().isEmpty()) {
                json.writeObjectFieldStart("fields");
                for (Map.Entry<String, String> field : hit.fields().entrySet()) {
                    List<String> several = hit.multiValues().get(field.getKey());
                    if (several == null) {
                        json.writeStringField(field.getKey(), field.getValue());
                    } else { // every value, as GET /documents/{id} writes a multi-valued field
                        json.writeArrayFieldStart(field.getKey());
                        for (String value : several) {
                            json.writeString(value);
                        }
                        json.writeEndArray();
                    }
                }
                json.writeEndObject();
            }
            if (hit.snippet() != null) {
                json.writeStringField("snippet", hit.snippet());
            }
            if (hit.highlight() != null) {
                json.writeObjectFieldStart("highlight");
                for (Map.Entry<String, List<String>> field : hit.highlight().entrySet()) {
                    json.writeArrayFieldStart(field.getKey());
                    for (String fragment : field.getValue()) {
                        json.writeString(fragment);
                    }
                    json.writeEndArray();
                }
                json.writeEndObject();
            }
            json.writeEndObject();
        }
        json.writeEndArray();
        if (!result.aggregations().isEmpty()) {
            writeAggregations(json, result.aggregations());
        }
        writeErrors(json, result.errors());
        if (withTrace) {
            writeTrace(json, result);
        }
        json.writeStringField("request_id", requestId);
        json.writeEndObject();
    }

    /**
     * The {@code aggregations} field, in Elasticsearch's shapes: {@code buckets} of {@code key}
     * (with {@code key_as_string} for dates, {@code from}/{@code to} for ranges) and {@code
     * doc_count}, terms' {@code doc_count_error_upper_bound} and {@code sum_other_doc_count}; stats'
     * {@code count}, {@code min}, {@code max}, {@code sum}, {@code avg} (null without values).
     */
    static void writeAggregations(JsonGenerator json, Map<String, AggregationResult> aggregations) throws IOException {
        json.writeObjectFieldStart("aggregations");
        for (Map.Entry<String, AggregationResult> entry : aggregations.entrySet()) {
            json.writeObjectFieldStart(entry.getKey());
            switch (entry.getValue()) {
                case AggregationResult.Terms terms -> {
                    json.writeNumberField("doc_count_error_upper_bound", terms.docCountErrorUpperBound());
                    json.writeNumberField("sum_other_doc_count", terms.sumOtherDocCount());
                    writeBuckets(json, terms.buckets());
                }
                case AggregationResult.Buckets buckets -> {
                    if (buckets.keyed()) {
                        writeKeyedBuckets(json, buckets.buckets());
                    } else {
                        writeBuckets(json, buckets.buckets());
                    }
                }
                case AggregationResult.Stats stats -> {
                    json.writeNumberField("count", stats.count());
                    writeNumberOrNull(json, "min", stats.min());
                    writeNumberOrNull(json, "max", stats.max());
                    writeNumberOrNull(json, "avg", stats.avg());
                    json.writeNumberField("sum", stats.sum());
                }
            }
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    private static void writeBuckets(JsonGenerator json, List<AggregationResult.Bucket> buckets) throws IOException {
        json.writeArrayFieldStart("buckets");
        for (AggregationResult.Bucket bucket : buckets) {
            json.writeStartObject();
            switch (bucket.key()) {
                case Long l -> json.writeNumberField("key", l);
                case Double d -> json.writeNumberField("key", d);
                default -> json.writeStringField("key", bucket.key().toString());
            }
            writeBucketBody(json, bucket);
        }
        json.writeEndArray();
    }

    /** A keyed range's buckets: an object by key, each bucket without its key (Elasticsearch's {@code keyed}). */
    private static void writeKeyedBuckets(JsonGenerator json, List<AggregationResult.Bucket> buckets) throws IOException {
        json.writeObjectFieldStart("buckets");
        for (AggregationResult.Bucket bucket : buckets) {
            json.writeObjectFieldStart(bucket.key().toString());
            writeBucketBody(json, bucket);
        }
        json.writeEndObject();
    }

    /** A bucket's fields after its key, and its end. */
    private static void writeBucketBody(JsonGenerator json, AggregationResult.Bucket bucket) throws IOException {
        if (bucket.keyAsString() != null) {
            json.writeStringField("key_as_string", bucket.keyAsString());
        }
        if (bucket.from() != null) {
            json.writeNumberField("from", bucket.from());
        }
        if (bucket.to() != null) {
            json.writeNumberField("to", bucket.to());
        }
        json.writeNumberField("doc_count", bucket.docCount());
        json.writeEndObject();
    }

    private static void writeNumberOrNull(JsonGenerator json, String name, double value) throws IOException {
        if (Double.isNaN(value)) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, value);
        }
    }

    /** The {@code coverage} field: partitions asked and answered, the documents' fraction, and why degraded if it is. */
    static void writeCoverage(JsonGenerator json, Coverage coverage) throws IOException {
        json.writeObjectFieldStart("coverage");
        json.writeNumberField("partitions_total", coverage.partitionsTotal());
        json.writeNumberField("partitions_answered", coverage.partitionsAnswered());
        json.writeNumberField("docs_fraction", Math.round(coverage.docsFraction() * 1e6) / 1e6);
        if (!coverage.degraded().isEmpty()) {
            json.writeArrayFieldStart("degraded");
            for (Coverage.Degradation reason : coverage.degraded()) {
                json.writeString(reason.label());
            }
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    /** The {@code errors} field, when a partition has one: what each partition that fell short says. */
    static void writeErrors(JsonGenerator json, List<PartitionError> errors) throws IOException {
        if (!errors.isEmpty()) {
            json.writeArrayFieldStart("errors");
            for (PartitionError error : errors) {
                json.writeStartObject();
                json.writeNumberField("partition", error.partition());
                json.writeStringField("kind", error.kind().label());
                if (error.leaf() != null) {
                    json.writeStringField("leaf", error.leaf());
                }
                json.writeStringField("detail", error.detail());
                json.writeEndObject();
            }
            json.writeEndArray();
        }
    }

    /**
     * The explain trace, when the result holds one: {@code trace}, every sub-request with when it was
     * sent and answered, and {@code leaves}, every leaf as the replica choice saw it.
     */
    static void writeTrace(JsonGenerator json, SearchResult result) throws IOException {
        if (!result.trace().isEmpty()) {
            json.writeArrayFieldStart("trace");
            for (SubRequestTrace sub : result.trace()) {
                json.writeStartObject();
                if (sub.partition() >= 0) {
                    json.writeNumberField("partition", sub.partition());
                }
                json.writeStringField("leaf", sub.leaf());
                json.writeStringField("kind", sub.kind().label());
                json.writeNumberField("sent_ms", millis(sub.sentMillis()));
                if (sub.answeredMillis() != null) {
                    json.writeNumberField("answered_ms", millis(sub.answeredMillis()));
                }
                if (sub.status() != null) {
                    json.writeStringField("status", sub.status());
                }
                json.writeBooleanField("used", sub.used());
                json.writeBooleanField("cancelled", sub.cancelled());
                json.writeEndObject();
            }
            json.writeEndArray();
        }
        if (!result.leaves().isEmpty()) {
            json.writeArrayFieldStart("leaves");
            for (LeafTrace leaf : result.leaves()) {
                json.writeStartObject();
                json.writeStringField("leaf", leaf.leaf());
                json.writeStringField("state", leaf.state());
                if (leaf.reason() != null) {
                    json.writeStringField("reason", leaf.reason());
                }
                json.writeNumberField("outstanding", leaf.outstanding());
                if (leaf.rank() != null) {
                    json.writeNumberField("rank", millis(leaf.rank()));
                }
                if (leaf.responseMillis() != null) {
                    json.writeNumberField("response_ms", millis(leaf.responseMillis()));
                    json.writeNumberField("service_ms", millis(leaf.serviceMillis()));
                    json.writeNumberField("queue", millis(leaf.queue()));
                }
                json.writeEndObject();
            }
            json.writeEndArray();
        }
    }

    /** Milliseconds to the microsecond, enough to read a trace by. */
    private static double millis(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
