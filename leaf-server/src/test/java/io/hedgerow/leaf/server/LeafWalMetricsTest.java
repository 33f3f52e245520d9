package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.metrics.PrometheusText;
import io.hedgerow.common.metrics.PrometheusText.Family;
import io.hedgerow.common.metrics.PrometheusText.Sample;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real leaf's write-ahead log meters on its {@code /metrics} (Prometheus text, read with the
 * strict parser): writes over a real socket move the append counters and the fsync histogram (one
 * sync per batch), the logs' size gauges hold what was written, and a leaf restarted on the same
 * copies counts the records it read back to replay.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafWalMetricsTest {
    private static final String INDEX = "walmetrics";
    private static final int PARTITIONS = 2;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @RegisterExtension
    final WritingLeaf leaf = new WritingLeaf(INDEX, PARTITIONS);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(PATIENCE).build();

    @AfterEach
    void close() {
        http.close();
    }

    @Test
    void writesMoveTheAppendCountersAndTheFsyncHistogramAndARestartCountsTheReplay() throws Exception {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        FrameSocket root = leaf.start(store, 0);
        Map<String, Family> before = scrape();
        assertThat(value(before, "hedgerow_leaf_wal_appended_records_total")).isZero();
        assertThat(value(before, "hedgerow_leaf_wal_fsync_seconds_count")).isZero();
        assertThat(before.get("hedgerow_leaf_wal_fsync_seconds").type()).isEqualTo("histogram");

        // Three batches (two on partition 0, one on partition 1): five records.
        write(root, 0, LeafWritesTest.upsert("w-1", "a wren"), LeafWritesTest.upsert("w-2", "a robin"));
        write(root, 0, LeafWritesTest.upsert("w-3", "a finch"));
        write(root, 1, LeafWritesTest.upsert("w-4", "a thrush"), LeafWritesTest.upsert("w-5", "a linnet"));

        Map<String, Family> after = scrape();
        assertThat(value(after, "hedgerow_leaf_wal_appends_total")).as("one per batch").isEqualTo(3);
        assertThat(value(after, "hedgerow_leaf_wal_appended_records_total")).isEqualTo(5);
        double bytes = value(after, "hedgerow_leaf_wal_appended_bytes_total");
        assertThat(bytes).isPositive();
        assertThat(value(after, "hedgerow_leaf_wal_fsync_seconds_count")).as("one sync per batch").isEqualTo(3);
        assertThat(value(after, "hedgerow_leaf_wal_fsync_seconds_sum")).isPositive();
        assertThat(after.get("hedgerow_leaf_wal_fsync_seconds").samples().stream()
                .filter(s -> s.name().equals("hedgerow_leaf_wal_fsync_seconds_bucket")
                        && s.labels().get("le").equals("+Inf"))
                .mapToDouble(Sample::value).sum()).as("every sync in a bucket").isEqualTo(3);
        assertThat(value(after, "hedgerow_leaf_wal_records")).as("summed over the leaf's copies").isEqualTo(5);
        assertThat(value(after, "hedgerow_leaf_wal_bytes")).isEqualTo(bytes);
        assertThat(value(after, "hedgerow_leaf_wal_errors_total")).isZero();
        assertThat(value(after, "hedgerow_leaf_wal_trims_total")).isZero();
        assertThat(value(after, "hedgerow_leaf_wal_replayed_records_total")).isZero();

        leaf.restart(store);
        Map<String, Family> restarted = scrape();
        assertThat(value(restarted, "hedgerow_leaf_wal_replayed_records_total"))
                .as("the copies' logs read back when the assignment opened them").isEqualTo(5);
        assertThat(value(restarted, "hedgerow_leaf_wal_records")).isEqualTo(5);
        assertThat(value(restarted, "hedgerow_leaf_wal_appended_records_total")).as("a new leaf's counters").isZero();
    }

    private void write(FrameSocket root, int partition, WriteOp... ops) throws IOException {
        long id = leaf.nextRequestId();
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(id).setPartition(partition)
                .setPrimary(true).addAllOps(List.of(ops))).build());
        WriteResponse response = root.receive().getWriteResult();
        assertThat(response.getRequestId()).isEqualTo(id);
        assertThat(response.getStatus()).as(response.getError()).isEqualTo(Status.OK);
    }

    private Map<String, Family> scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://" + leaf.server().httpAddress()
                + "/metrics")).timeout(PATIENCE).GET().build(), BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return PrometheusText.parse(response.body());
    }

    /** The one sample named {@code sample}, in whichever family holds it. */
    private static double value(Map<String, Family> families, String sample) {
        List<Double> values = families.values().stream().flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(sample)).map(Sample::value).toList();
        assertThat(values).as("samples named %s", sample).hasSize(1);
        return values.get(0);
    }
}
