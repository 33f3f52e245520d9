package io.hedgerow.loadgen.durability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who is primary and who is replica of each partition, as the root's {@code GET /cluster} says
 * now: its {@code writes} section names leaves by address, its {@code leaves} list maps addresses
 * to leaf numbers (the numbers the run directory's pid files use).
 *
 * @param primaries the primary leaf of each partition that has one
 * @param replicas  every leaf holding a copy of each partition (primary included)
 */
record ClusterRoles(Map<Integer, Integer> primaries, Map<Integer, List<Integer>> replicas) {
    private static final ObjectMapper JSON = new ObjectMapper();

    ClusterRoles {
        primaries = Map.copyOf(primaries);
        replicas = Map.copyOf(replicas);
    }

    /** From the first root that answers, in order (a root the nemesis paused or cut off does not). */
    static ClusterRoles fetch(List<URI> roots) throws IOException {
        IOException failed = null;
        for (URI root : roots) {
            try {
                return fetch(root);
            } catch (IOException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        throw failed != null ? failed : new IOException("roots: none (expected: at least one root URL)");
    }

    static ClusterRoles fetch(URI root) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(root.resolve("/cluster"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException("GET /cluster: HTTP " + response.statusCode());
            }
            return parse(JSON.readTree(response.body()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    static ClusterRoles parse(JsonNode cluster) {
        Map<String, Integer> byAddress = new HashMap<>();
        for (JsonNode leaf : cluster.path("leaves")) {
            byAddress.put(hostPort(leaf.path("address").asText()), leaf.path("leaf").asInt());
        }
        Map<Integer, List<Integer>> replicas = new HashMap<>();
        for (JsonNode partition : cluster.path("partition_replicas")) {
            List<Integer> leaves = new ArrayList<>();
            partition.path("leaves").forEach(leaf -> leaves.add(leaf.asInt()));
            replicas.put(partition.path("partition").asInt(), leaves);
        }
        Map<Integer, Integer> primaries = new HashMap<>();
        for (JsonNode partition : cluster.path("writes").path("partitions")) {
            Integer leaf = byAddress.get(hostPort(partition.path("primary").asText("")));
            if (leaf != null) {
                primaries.put(partition.path("partition").asInt(), leaf);
            }
        }
        return new ClusterRoles(primaries, replicas);
    }

    /** {@code host:port} of an address as either list prints it ({@code /127.0.0.1:4000}, {@code localhost/127.0.0.1:4000}). */
    static String hostPort(String address) {
        int slash = address.lastIndexOf('/');
        return slash >= 0 ? address.substring(slash + 1) : address;
    }
}
