package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.common.metrics.PrometheusText;
import io.hedgerow.common.metrics.PrometheusText.Family;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator scrapes, from a real cluster over real sockets (an embedded root and two leaves,
 * each leaf with its HTTP port): the root's {@code /cluster} names each leaf's HTTP address, the
 * root's and the leaves' {@code /metrics} parse as Prometheus text (a strict parser of format
 * 0.0.4, {@link PrometheusText}) with the JVM's meters and {@code hedgerow_build_info}, the root's
 * {@code /health} is liveness (200 with every leaf gone, where {@code /ready} says 503), and every
 * metric the Grafana dashboard (docs/grafana/hedgerow.json) queries exists in those scrapes.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ObservabilityTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "hedgerow.json");

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("observed", IndexConfig.defaults(), TestData.documents(33, 120))
                .leaves(2).partitions(4).replicas(2).http(0)
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PATIENCE).build();
        // A write first, so the leaves' write-ahead logs have appended and synced (the dashboard's WAL panels).
        HttpResponse<String> written = http.send(HttpRequest.newBuilder(URI.create(root("/documents/observed-1")))
                .timeout(PATIENCE).PUT(HttpRequest.BodyPublishers.ofString(
                        "{\"title\": \"observed\", \"body\": \"a written document\"}")).build(), BodyHandlers.ofString());
        assertThat(written.statusCode()).as(written.body()).isIn(200, 201);
        for (int i = 0; i < 5; i++) {
            assertThat(get("http://127.0.0.1:" + cluster.httpPort() + "/search?q=the&k=3").statusCode()).isEqualTo(200);
        }
        System.gc(); // so each GC binder has a pause to report (jvm_gc_pause_seconds appears with the first)
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (http != null) {
            http.close();
        }
    }

    @Test
    void clusterNamesEachLeafsHttpAddress() throws Exception {
        JsonNode leaves = JSON.readTree(get(root("/cluster")).body()).get("leaves");
        assertThat(leaves).hasSize(2);
        for (int i = 0; i < 2; i++) {
            String expected = cluster.leaves().get(i).httpAddress();
            assertThat(expected).isNotEmpty();
            assertThat(leaves.get(i).get("http").asText()).as("leaf %d", i).isEqualTo(expected);
            HttpResponse<String> ready = get("http://" + expected + "/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        }
    }

    @Test
    void rootAndLeavesExportPrometheusTextWithTheJvmsMeters() throws Exception {
        Map<String, Family> root = scrapeUntil(root("/metrics"), "jvm_gc_pause_seconds");
        assertThat(root.keySet()).contains("hedgerow_search_latency_seconds", "jvm_memory_used_bytes",
                "jvm_gc_pause_seconds", "jvm_threads_live_threads", "jvm_classes_loaded_classes", "process_cpu_usage",
                "process_uptime_seconds", "hedgerow_build_info");
        assertThat(root.get("hedgerow_build_info").samples().get(0).labels()).containsEntry("role", "root");
        for (LeafServer leaf : cluster.leaves()) {
            Map<String, Family> scraped = scrapeUntil("http://" + leaf.httpAddress() + "/metrics", "jvm_gc_pause_seconds");
            assertThat(scraped.keySet()).contains("hedgerow_leaf_service_seconds", "hedgerow_leaf_queue_depth",
                    "jvm_memory_used_bytes", "jvm_gc_pause_seconds", "hedgerow_build_info");
        }
    }

    @Test
    void everyMetricTheDashboardQueriesExists() throws Exception {
        Set<String> exported = new HashSet<>();
        for (String url : scrapeUrls()) {
            for (Family family : scrapeUntil(url, "jvm_gc_pause_seconds").values()) {
                family.samples().forEach(sample -> exported.add(sample.name()));
            }
        }
        JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
        List<String> expressions = new ArrayList<>();
        collectExpressions(dashboard, expressions);
        assertThat(expressions).as("PromQL expressions in " + DASHBOARD).hasSizeGreaterThan(10);
        Set<String> missing = new TreeSet<>();
        for (String expression : expressions) {
            Set<String> names = PromQl.metricNames(expression);
            assertThat(names).as("metric names in %s", expression).isNotEmpty();
            for (String name : names) {
                if (!exported.contains(name)) {
                    missing.add(name + " (in " + expression + ")");
                }
            }
        }
        assertThat(missing).as("metrics the dashboard queries that no scrape of a root or leaf has").isEmpty();
        assertThat(expressions).as("the dashboard's write-ahead log panels")
                .anyMatch(e -> e.contains("hedgerow_leaf_wal_fsync_seconds_bucket"))
                .anyMatch(e -> e.contains("hedgerow_leaf_wal_appended_records_total"))
                .anyMatch(e -> e.contains("hedgerow_leaf_wal_bytes"))
                .anyMatch(e -> e.contains("hedgerow_leaf_wal_errors_total"));
    }

    @Test
    void theLeavesLogsSyncedTheWriteOnEveryReplica() throws Exception {
        double syncs = 0;
        double records = 0;
        for (LeafServer leaf : cluster.leaves()) {
            Map<String, Family> scraped = scrapeUntil("http://" + leaf.httpAddress() + "/metrics", "jvm_gc_pause_seconds");
            syncs += sum(scraped, "hedgerow_leaf_wal_fsync_seconds_count");
            records += sum(scraped, "hedgerow_leaf_wal_records");
        }
        assertThat(syncs).as("the write synced on both replicas of its partition").isGreaterThanOrEqualTo(2);
        assertThat(records).as("the write held in both replicas' logs").isGreaterThanOrEqualTo(2);
    }

    private static double sum(Map<String, Family> families, String sample) {
        return families.values().stream().flatMap(f -> f.samples().stream()).filter(s -> s.name().equals(sample))
                .mapToDouble(s -> s.value()).sum();
    }

    @Test
    void readsTheMetricNamesOfAPromQlExpression() {
        assertThat(PromQl.metricNames("histogram_quantile(0.99, sum by (le, leaf) (rate(a_seconds_bucket{kind=~\"x|y\"}"
                + "[$__rate_interval]))) / ignoring(le) sum without (gc) (b_total) > bool 1e3 and on(instance) c"))
                .containsExactly("a_seconds_bucket", "b_total", "c");
    }

    @Test
    void theRootIsAliveWithEveryLeafGoneButNotReady() throws Exception {
        // A cluster of its own: it stops its only leaf.
        EmbeddedCluster alone = EmbeddedCluster.builder(dataDir.resolve("alone"))
                .documents("alone", IndexConfig.defaults(), TestData.documents(34, 40))
                .leaves(1).partitions(2).replicas(1).http(0)
                .start();
        try {
            String base = "http://127.0.0.1:" + alone.httpPort();
            alone.leaves().get(0).close();
            Await.until("the root to see its leaf gone", PATIENCE,
                    () -> get(base + "/health").body().contains("\"leaves_up\":0"));
            HttpResponse<String> health = get(base + "/health");
            assertThat(health.statusCode()).as("liveness whatever the leaves: %s", health.body()).isEqualTo(200);
            assertThat(JSON.readTree(health.body()).get("status").asText()).isEqualTo("down");
            assertThat(get(base + "/ready").statusCode()).as("not ready: no partition is reachable").isEqualTo(503);
        } finally {
            alone.close();
        }
    }

    private static List<String> scrapeUrls() {
        List<String> urls = new ArrayList<>();
        urls.add(root("/metrics"));
        cluster.leaves().forEach(leaf -> urls.add("http://" + leaf.httpAddress() + "/metrics"));
        return urls;
    }

    /** Every {@code expr} of the dashboard's panels' targets (and of its templating queries). */
    private static void collectExpressions(JsonNode node, List<String> into) {
        if (node.isObject()) {
            node.properties().forEach(field -> {
                if (field.getKey().equals("expr") && field.getValue().isTextual()) {
                    into.add(field.getValue().asText());
                } else {
                    collectExpressions(field.getValue(), into);
                }
            });
        } else if (node.isArray()) {
            node.forEach(child -> collectExpressions(child, into));
        }
    }

    /** Scrapes {@code url} every few milliseconds (not in a spin: the roots share two cores) until it has {@code family}. */
    private static Map<String, Family> scrapeUntil(String url, String family) throws Exception {
        AtomicReference<Map<String, Family>> scraped = new AtomicReference<>();
        Await.until(() -> family + " on " + url, PATIENCE, () -> {
            HttpResponse<String> response = get(url);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
            scraped.set(PrometheusText.parse(response.body()));
            return scraped.get().containsKey(family);
        });
        return scraped.get();
    }

    private static String root(String path) {
        return "http://127.0.0.1:" + cluster.httpPort() + path;
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(PATIENCE).GET().build(), BodyHandlers.ofString());
    }

    /**
     * The metric names a PromQL expression selects: what is left once strings, label matchers,
     * ranges, grouping clauses, numbers, functions and keywords are taken out. Enough for the
     * dashboard's queries; not a PromQL parser.
     */
    static final class PromQl {
        private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
                "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan");
        private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

        static Set<String> metricNames(String expression) {
            String rest = expression
                    .replaceAll("\"(\\\\.|[^\"\\\\])*\"", " ")         // strings
                    .replaceAll("\\{[^}]*}", " ")                        // label matchers
                    .replaceAll("\\[[^]]*]", " ")                        // ranges and subqueries
                    .replaceAll("\\$\\{?[a-zA-Z_]+}?", " ")              // Grafana variables
                    .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
            Set<String> names = new TreeSet<>();
            Matcher matcher = IDENTIFIER.matcher(rest);
            while (matcher.find()) {
                String word = matcher.group();
                int after = matcher.end();
                while (after < rest.length() && rest.charAt(after) == ' ') {
                    after++;
                }
                boolean function = after < rest.length() && rest.charAt(after) == '(';
                boolean number = matcher.start() > 0 && Character.isDigit(rest.charAt(matcher.start() - 1));
                if (!function && !number && !KEYWORDS.contains(word.toLowerCase())) {
                    names.add(word);
                }
            }
            return names;
        }
    }
}
