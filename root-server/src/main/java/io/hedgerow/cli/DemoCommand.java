package io.hedgerow.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.root.local.LocalCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hedgerow demo}: indexes Europarl (once), starts a local cluster of leaf processes, runs a
 * few sample queries through the HTTP API and shows their results and latencies, then serves.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"The main job: index Europarl (once, cached under --data), start a local cluster",
                "(4 leaf processes by default), run sample queries through the HTTP API, then serve until Ctrl-C."})
final class DemoCommand implements Callable<Integer> {
    static final List<String> SAMPLE_QUERIES = List.of(
            "european parliament",
            "\"human rights\"",
            "fisheries AND quota",
            "title:budget",
            "klimawandel OR climate");

    private static final int WARM_UP_QUERIES = 500;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Option(names = "--no-serve", description = "Run the sample queries, then stop the cluster and exit.")
    private boolean noServe;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        out.printf("Hedgerow demo: Europarl, %d partitions x %d replicas on %d leaf processes%n%n",
                cluster.partitions, cluster.replicas, cluster.leaves);
        LocalCluster local;
        try {
            Path index = cluster.resolveIndex(out);
            out.println("Starting " + cluster.leaves + " leaf processes and the root"
                    + (cluster.faultInjection ? " (leaves with fault injection enabled)" : "") + "...");
            local = LocalCluster.start(cluster.toOptions(index, spec), out);
            out.println("  root: " + local.root().warmUp(cluster.rootWarmup));
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
        LocalCluster running = local;
        CountDownLatch stopped = Shutdown.closeOnExit(local, () -> running.root().stopReport());
        String base = "http://" + cluster.host + ":" + local.httpPort();
        out.printf("%nThe cluster is serving on %s/%n", base);
        out.printf("Try:  curl '%s/search?q=european+parliament&k=3'%n", base);
        out.printf("      curl -XPOST %s/search -H 'content-type: application/json' -d '{\"query\": \"\\\"human rights\\\"\", \"k\": 3}'%n", base);
        out.printf("Also: %s/health  %s/cluster  %s/metrics%n", base, base, base);
        out.printf("%s%n%n", LocalCommand.writeExample(base, cluster.runDirectory()));
        try {
            // Fresh JVMs interpret and compile for a while; latencies mean more once that is over.
            out.print("Warming up the JVMs with " + WARM_UP_QUERIES + " queries... ");
            long warmUpNanos = warmUp(base);
            out.printf("done in %.1f s%n%n", warmUpNanos / 1e9);
            out.println("Sample queries through the HTTP API (top 3 hits each):");
            runSamples(out, base);
        } catch (IOException e) {
            spec.commandLine().getErr().println("error: sample query failed: " + e.getMessage());
            local.close();
            return 1;
        }
        if (noServe) {
            local.close();
            return 0;
        }
        out.printf("%nServing until Ctrl-C.%n");
        stopped.await();
        return 0;
    }

    private static long warmUp(String base) throws IOException, InterruptedException {
        long start = System.nanoTime();
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (int i = 0; i < WARM_UP_QUERIES; i++) {
                String query = SAMPLE_QUERIES.get(i % SAMPLE_QUERIES.size());
                // cache=false: the warm-up must exercise the search path, and the samples show its latency
                URI uri = URI.create(base + "/search?k=3&cache=false&q=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(uri).GET().build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() != 200) {
                    throw new IOException(query + ": HTTP " + response.statusCode());
                }
            }
        }
        return System.nanoTime() - start;
    }

    private static void runSamples(PrintStream out, String base) throws IOException, InterruptedException {
        ObjectMapper json = new ObjectMapper();
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (String query : SAMPLE_QUERIES) {
                URI uri = URI.create(base + "/search?k=3&cache=false&q=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
                long start = System.nanoTime();
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                double roundTripMillis = (System.nanoTime() - start) / 1e6;
                JsonNode body = json.readTree(response.body());
                if (response.statusCode() != 200) {
                    throw new IOException(query + ": HTTP " + response.statusCode() + " " + response.body());
                }
                out.printf("%n  %s%n    %,d hits (%s), took %.1f ms at the root, %.1f ms round trip%s%n", query,
                        body.path("total_hits").path("value").asLong(),
                        body.path("total_hits").path("relation").asText(),
                        body.path("took_ms").asDouble(), roundTripMillis,
                        body.path("tainted").asBoolean() ? ", TAINTED (partial coverage)" : "");
                int rank = 1;
                for (JsonNode hit : body.path("hits")) {
                    out.printf("    %d. [doc %s, partition %d, score %.2f] %s%n", rank++, hit.path("id").asText(),
                            hit.path("partition").asInt(), hit.path("score").asDouble(),
                            hit.path("fields").path("title").asText(""));
                    String snippet = hit.path("snippet").asText("");
                    if (!snippet.isEmpty()) {
                        out.printf("       %s%n", abbreviate(snippet.replaceAll("\\s+", " "), 110));
                    }
                }
            }
        }
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
