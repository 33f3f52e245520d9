package io.hedgerow.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The test parser of the Prometheus text format is strict: it refuses what Prometheus would. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PrometheusTextTest {
    private static final String VALID = """
            # HELP requests_total Requests, by kind. A \\\\ and a \\n.
            # TYPE requests_total counter
            requests_total{kind="search",path="a\\"b"} 3.0
            requests_total{kind="fetch"} 0
            # TYPE latency_seconds histogram
            latency_seconds_bucket{le="0.1"} 1
            latency_seconds_bucket{le="1.0"} 2
            latency_seconds_bucket{le="+Inf"} 2
            latency_seconds_count 2
            latency_seconds_sum 0.7
            # TYPE up gauge
            up NaN 1700000000000
            """;

    @Test
    void readsFamiliesTypesLabelsAndValues() {
        Map<String, PrometheusText.Family> families = PrometheusText.parse(VALID);
        assertThat(families.keySet()).containsExactly("requests_total", "latency_seconds", "up");
        assertThat(families.get("requests_total").help()).isEqualTo("Requests, by kind. A \\ and a \n.");
        assertThat(families.get("requests_total").samples().get(0).labels()).containsEntry("path", "a\"b");
        assertThat(families.get("latency_seconds").samples()).hasSize(5);
        assertThat(families.get("up").samples().get(0).value()).isNaN();
    }

    @Test
    void refusesWhatPrometheusWould() {
        assertThatThrownBy(() -> PrometheusText.parse("a 1\na 2\n")).hasMessageContaining("no series twice");
        assertThatThrownBy(() -> PrometheusText.parse("a{b=\"c} 1\n")).hasMessageContaining("closing quote");
        assertThatThrownBy(() -> PrometheusText.parse("a{b=\"\\t\"} 1\n")).hasMessageContaining("label value");
        assertThatThrownBy(() -> PrometheusText.parse("a one\n")).hasMessageContaining("a float value");
        assertThatThrownBy(() -> PrometheusText.parse("2a 1\n")).hasMessageContaining("metric name");
        assertThatThrownBy(() -> PrometheusText.parse("a 1")).hasMessageContaining("line feed");
        assertThatThrownBy(() -> PrometheusText.parse("a 1\nb 1\na{x=\"y\"} 1\n")).hasMessageContaining("one block");
        assertThatThrownBy(() -> PrometheusText.parse("a 1\n# TYPE a gauge\n")).hasMessageContaining("before");
        assertThatThrownBy(() -> PrometheusText.parse(VALID.replace("le=\"1.0\"} 2", "le=\"1.0\"} 0")))
                .hasMessageContaining("cumulative");
        assertThatThrownBy(() -> PrometheusText.parse(VALID.replace("latency_seconds_count 2", "latency_seconds_count 3")))
                .hasMessageContaining("_count equal");
        assertThatThrownBy(() -> PrometheusText.parse(VALID.replace("latency_seconds_bucket{le=\"+Inf\"} 2\n", "")))
                .hasMessageContaining("+Inf");
    }
}
