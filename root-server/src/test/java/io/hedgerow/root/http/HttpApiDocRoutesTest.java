package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The 404 and 405 rows of docs/http-api.md's error table against a real root that has every route
 * (writes, fault injection): every path the root's own 404 detail lists is in the 404 row, and the
 * 405 row gives each documented path the {@code Allow} header the root really sends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class HttpApiDocRoutesTest {
    private static final String ADMIN = "admin-token-for-the-doc-routes-test-0123456789";
    private static final String WRITE = "write-token-for-the-doc-routes-test-0123456789";
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final ObjectMapper json = new ObjectMapper();
    private EmbeddedCluster cluster;

    @BeforeAll
    void start() throws Exception {
        cluster = EmbeddedCluster.builder(Files.createTempDirectory("doc-routes"))
                .documents("routes", IndexConfig.defaults(), TestData.documents(3, 40))
                .leaves(1).partitions(2).replicas(1).faultInjection(true).adminToken(ADMIN).writeToken(WRITE).http(0)
                .start();
    }

    @AfterAll
    void stop() {
        http.close();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theNotFoundRowNamesEveryPathTheRootServes() throws Exception {
        HttpResponse<String> notFound = send("GET", "/no/such/path");
        assertThat(notFound.statusCode()).isEqualTo(404);
        Matcher listed = Pattern.compile("\\(expected: (.*)\\)$").matcher(json.readTree(notFound.body()).path("detail").asText());
        assertThat(listed.find()).as(notFound.body()).isTrue();
        List<String> served = Arrays.stream(listed.group(1).split(",| or ")).map(String::trim).filter(p -> !p.isEmpty())
                .toList();

        assertThat(served).contains("/search", "/documents", "/_bulk", "/admin/leaves/{n}/...");
        assertThat(codeSpans(errorRow("404"))).containsAll(served);
    }

    @Test
    void theMethodNotAllowedRowGivesEachPathTheMethodsTheRootAllows() throws Exception {
        Map<String, String> documented = allowedByRow(errorRow("405"));
        JsonNode openapi = json.readTree(OpenApiRoutes.class.getResourceAsStream(OpenApiRoutes.RESOURCE));
        Map<String, String> real = new TreeMap<>();
        for (Map.Entry<String, JsonNode> path : openapi.path("paths").properties()) {
            String concrete = path.getKey().replace("{id}", "x").replace("{n}", "0").replace("{asset}", "console.js");
            HttpResponse<String> answer = send("PATCH", concrete);
            assertThat(answer.statusCode()).as("PATCH " + concrete + ": " + answer.body()).isEqualTo(405);
            real.put(path.getKey(), answer.headers().firstValue("Allow").orElse("(none)"));
        }

        assertThat(new TreeMap<>(documented)).isEqualTo(real);
    }

    /** The table row of docs/http-api.md's Errors section for {@code status}. */
    private static String errorRow(String status) throws Exception {
        for (String line : Files.readAllLines(repository().resolve("docs/http-api.md"))) {
            if (line.startsWith("| " + status + " |")) {
                return line;
            }
        }
        throw new AssertionError("docs/http-api.md has no " + status + " row");
    }

    /**
     * The 405 row's clauses, {@code `GET, POST` on `/search`; ...; `GET` on the others (`/health`,
     * ...)}, as a map from each path to its methods.
     */
    private static Map<String, String> allowedByRow(String row) {
        String text = row.substring(row.indexOf("lists the methods that are:") + "lists the methods that are:".length());
        text = text.substring(0, text.indexOf(". `HEAD`"));
        Map<String, String> allowed = new TreeMap<>();
        for (String clause : text.split(";")) {
            List<String> spans = codeSpans(clause);
            assertThat(spans).as("a clause of the 405 row: " + clause).hasSizeGreaterThanOrEqualTo(2);
            for (String path : spans.subList(1, spans.size())) {
                assertThat(allowed.put(path, spans.get(0))).as("the 405 row names " + path + " once").isNull();
            }
        }
        return allowed;
    }

    private static List<String> codeSpans(String text) {
        List<String> spans = new ArrayList<>();
        Matcher code = CODE.matcher(text);
        while (code.find()) {
            spans.add(code.group(1));
        }
        return spans;
    }

    private static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("docs/http-api.md"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(Duration.ofSeconds(30)).method(method, HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + (path.startsWith("/admin") ? ADMIN : WRITE)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
