package io.hedgerow.root;

import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the total JIT compilation time of this root's JVM and of each of its leaves, for the
 * warm-up's {@link io.hedgerow.common.policy.CompilationQuiet}: this JVM's from its {@link
 * CompilationMXBean}, a leaf's from the {@code jvm_compilation_time_ms_total} line of its HTTP
 * {@code /metrics}. A leaf without an HTTP port, or one that does not answer within a second, is
 * left out of that reading.
 *
 * <p><b>Assumptions and guarantees.</b> Blocks the caller (the warm-up's own thread) for up to a
 * second per leaf; never throws.
 */
final class CompileTimes implements Supplier<Map<String, Long>>, AutoCloseable {
    private static final String METRIC = "jvm_compilation_time_ms_total";

    private final ClusterState cluster;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    CompileTimes(ClusterState cluster) {
        this.cluster = cluster;
    }

    @Override
    public Map<String, Long> get() {
        Map<String, Long> millis = new HashMap<>();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
            millis.put("root", jit.getTotalCompilationTime());
        }
        for (LeafStatus leaf : cluster.leaves()) {
            String address = leaf.httpAddress();
            if (!address.isEmpty()) {
                Long leafMillis = read(address);
                if (leafMillis != null) {
                    millis.put("leaf " + leaf.name(), leafMillis);
                }
            }
        }
        return millis;
    }

    private Long read(String address) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address + "/metrics"))
                    .timeout(Duration.ofSeconds(1)).build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? totalMillis(response.body()) : null;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Stops the HTTP client's threads. */
    @Override
    public void close() {
        client.close();
    }

    /** The value of the compilation-time line of a Prometheus text exposition, or null when absent. */
    static Long totalMillis(String prometheusText) {
        for (String line : prometheusText.split("\n")) {
            if (line.startsWith(METRIC) && (line.length() == METRIC.length()
                    || line.charAt(METRIC.length()) == '{' || line.charAt(METRIC.length()) == ' ')) {
                String value = line.substring(line.lastIndexOf(' ') + 1);
                try {
                    return (long) Double.parseDouble(value);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
