package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Reading the root's {@code /metrics/leaves}: each leaf's histograms by leaf, phase and part. */
class LeafHistogramsParseTest {
    @Test
    void namesEachHistogramByLeafPhaseAndPart() throws IOException {
        String body = "{\"unit\":\"microseconds\",\"leaves\":[{\"leaf\":0,\"address\":\"127.0.0.1:7001\","
                + "\"search\":{\"service\":" + part(40, 5) + ",\"round_trip\":" + part(700, 5) + "},"
                + "\"fetch\":{\"service\":" + part(150, 2) + "}},"
                + "{\"leaf\":1,\"address\":\"127.0.0.1:7002\",\"search\":{\"service\":" + part(50, 3) + "}}]}";

        Map<String, Histogram> leaves = RootMetricsScraper.parseLeaves(body);

        assertThat(leaves.keySet()).containsExactly("leaf-0-search-service", "leaf-0-search-round_trip",
                "leaf-0-fetch-service", "leaf-1-search-service");
        assertThat(leaves.get("leaf-0-search-round_trip").getTotalCount()).isEqualTo(5);
        assertThat(leaves.get("leaf-1-search-service").getMaxValue()).isBetween(49L, 51L);
    }

    @Test
    void refusesAnotherUnit() {
        assertThatThrownBy(() -> RootMetricsScraper.parseLeaves("{\"unit\":\"ms\",\"leaves\":[]}"))
                .hasMessageContaining("unit 'ms' (expected: microseconds)");
    }

    private static String part(long micros, int count) {
        Histogram histogram = new Histogram(2);
        histogram.recordValueWithCount(micros, count);
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        String encoded = Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
        return "{\"count\":" + count + ",\"histogram\":\"" + encoded + "\"}";
    }
}
