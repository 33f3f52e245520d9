package io.hedgerow.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.queries.QueryCategory;
import io.hedgerow.loadgen.queries.QuerySetFile;
import io.hedgerow.loadgen.queries.RequestMix;
import io.hedgerow.loadgen.queries.SampleIndex;
import io.hedgerow.loadgen.queries.TestQuerySets;
import io.hedgerow.loadgen.run.RequestSource;
import io.hedgerow.loadgen.scenario.RequestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadTest {
    @TempDir
    Path data;

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

    @Test
    void generatesTheDefaultSetFromTheIndexOnFirstUseThenReusesIt() throws IOException {
        SampleIndex.copyTo(data.resolve("europarl"));

        Workload first = Workload.load(null, data, 7, out);

        Path file = data.resolve("queries/europarl-7.tsv");
        assertThat(first.file()).isEqualTo(file);
        assertThat(output.toString(StandardCharsets.UTF_8)).isEqualTo("Generating query set from "
                + data.resolve("europarl") + " (seed 7)... wrote " + first.querySet().size() + " queries in 10 categories to "
                + file + System.lineSeparator());
        assertThat(first.querySet().categoryNames()).containsExactlyElementsOf(QueryCategory.labels());
        assertThat(first.describe()).startsWith(file + " (" + first.querySet().size() + " queries: high_term ");

        output.reset();
        byte[] bytes = Files.readAllBytes(file);
        Workload second = Workload.load(null, data, 7, out);
        assertThat(output.size()).as("nothing generated the second time").isZero();
        assertThat(second.querySet()).isEqualTo(first.querySet());
        assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
    }

    @Test
    void saysToBuildTheIndexWhenThereIsNone() {
        assertThatThrownBy(() -> Workload.load(null, data, 42, out))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(data.resolve("europarl").toString())
                .hasMessageContaining("run ./hedgerow index first");
    }

    @Test
    void loadsAGivenFileAndDrawsPathsByTheMix() throws IOException {
        Path file = Files.writeString(data.resolve("mine.tsv"), """
                # hand-written
                high_term\tque
                phrase\t"human rights"
                prefix\teuro*
                and_high_med\t+den +forslaget
                """);
        Workload workload = Workload.load(file, data, 1, out);
        assertThat(workload.describe())
                .isEqualTo(file + " (4 queries: high_term 1, phrase 1, prefix 1, and_high_med 1)");

        RequestSource source = workload.requests("phrase=1,and_high_med=1",
                new RequestOptions(10, 500L, null, null, null, null, null, null, null), 3);
        Set<String> paths = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            paths.add(source.next().uri());
        }
        assertThat(paths).containsExactlyInAnyOrder(
                "/search?q=%22human+rights%22&k=10&timeout_ms=500",
                "/search?q=%2Bden+%2Bforslaget&k=10&timeout_ms=500");
        RequestSource exact = workload.requests("phrase=1", new RequestOptions(1000, null, null, null, null, null,
                null, null, null, 100_000), 3);
        assertThat(exact.next().uri()).as("exact totals, for expensive queries")
                .isEqualTo("/search?q=%22human+rights%22&k=1000&total_hits_threshold=100000");
        String query = "/search?q=%2Bden+%2Bforslaget".substring("/search?q=".length());
        assertThat(URLDecoder.decode(query, StandardCharsets.UTF_8)).isEqualTo("+den +forslaget");
    }

    @Test
    void aRoutingMixNamesEachValueAsOftenAsItsWeightSays() throws IOException {
        Path file = Files.writeString(data.resolve("mine.tsv"), "high_term\tque\n");
        RequestSource source = Workload.load(file, data, 1, out).requests(null,
                new RequestOptions(null, null, null, null, null, null, null, null, null, null, "de=3,fr=1"), 5);

        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 4000; i++) {
            counts.merge(source.next().uri(), 1, Integer::sum);
        }
        assertThat(counts.keySet()).containsExactlyInAnyOrder("/search?q=que&routing=de", "/search?q=que&routing=fr");
        assertThat(counts.get("/search?q=que&routing=de")).isBetween(2800, 3200);
        assertThatThrownBy(() -> new RequestOptions(null, null, null, null, null, null, null, null, null, null, "de=x"))
                .hasMessageContaining("routing: 'de=x'");
    }

    @Test
    void withoutAMixSendsTheDefaultMixOfTheCategoriesTheSetHas() throws IOException {
        Path file = Files.writeString(data.resolve("mine.tsv"), "high_term\tque\nmine\tsomething\n");
        RequestSource source = Workload.load(file, data, 1, out).requests(null, RequestOptions.NONE, 5);

        for (int i = 0; i < 200; i++) {
            assertThat(source.next().uri()).isEqualTo("/search?q=que");
        }
    }

    @Test
    void refusesAMixNamingACategoryTheSetLacks() throws IOException {
        Path file = Files.writeString(data.resolve("mine.tsv"), "high_term\tque\nphrase\t\"a b\"\n");
        Workload workload = Workload.load(file, data, 1, out);

        assertThatThrownBy(() -> workload.requests("large_or=2", RequestOptions.NONE, 1))
                .hasMessage("mix: unknown category 'large_or' (this query set has: high_term, phrase)");
    }

    @Test
    void nextBuildsNoStrings() throws IOException {
        Path file = data.resolve("set.tsv");
        QuerySetFile.write(TestQuerySets.withCategories("high_term", "phrase", "prefix"), file);
        RequestSource source = Workload.load(file, data, 1, out)
                .requests("high_term=5,phrase=1,prefix=1", RequestOptions.NONE, 9);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long length = 0;
        for (int i = 0; i < 100_000; i++) {
            length += source.next().uri().length();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            length += source.next().uri().length();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(length).isPositive();
        assertThat(allocated).as("bytes allocated by 100,000 requests").isLessThan(10_000);
    }

    @Test
    void theStructuredMixPostsTheSameQueriesAsThePlainMixOfTheSameSeed() throws IOException {
        Path file = data.resolve("set.tsv");
        QuerySetFile.write(TestQuerySets.withCategories("high_term", "phrase", "prefix"), file);
        Workload workload = Workload.load(file, data, 1, out);
        RequestOptions options = new RequestOptions(null, null, null, null, null, null, null, null, false);
        RequestSource plain = workload.requests(null, options, RequestMix.PLAIN, 9);
        RequestSource structured = workload.requests(null, options, RequestMix.STRUCTURED, 9);

        Set<String> shapes = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            LoadRequest get = plain.next();
            LoadRequest post = structured.next();
            assertThat(get.isPost()).isFalse();
            assertThat(post.isPost()).isTrue();
            assertThat(post.uri()).isEqualTo("/search");
            String query = URLDecoder.decode(get.uri().substring("/search?q=".length(), get.uri().indexOf('&')),
                    StandardCharsets.UTF_8);
            JsonNode body = new ObjectMapper().readTree(post.bodyText());
            assertThat(body.get("query").asText()).as("request %d", i).isEqualTo(query);
            for (String part : List.of("filter", "sort", "from", "aggs")) {
                if (body.has(part)) {
                    shapes.add(part);
                }
            }
        }
        assertThat(shapes).containsExactlyInAnyOrder("filter", "sort", "from", "aggs");
    }

    @Test
    void aStructuredMixOfOneShapeSendsOnlyThatShapeWithTheSameQueries() throws IOException {
        Path file = data.resolve("set.tsv");
        QuerySetFile.write(TestQuerySets.withCategories("high_term", "phrase", "prefix"), file);
        Workload workload = Workload.load(file, data, 1, out);
        RequestMix faceted = RequestMix.parse("structured:Faceted");
        RequestSource all = workload.requests(null, RequestOptions.NONE, RequestMix.STRUCTURED, 9);
        RequestSource only = workload.requests(null, RequestOptions.NONE, faceted, 9);

        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < 500; i++) {
            JsonNode any = json.readTree(all.next().bodyText());
            JsonNode body = json.readTree(only.next().bodyText());
            assertThat(body.get("query").asText()).as("request %d", i).isEqualTo(any.get("query").asText());
            assertThat(body.has("aggs")).as("request %d: %s", i, body).isTrue();
            assertThat(body.has("filter") || body.has("sort") || body.has("from")).isFalse();
        }
        assertThat(faceted.describe()).isEqualTo("structured (faceted only)");
        assertThatThrownBy(() -> RequestMix.parse("structured:facets"))
                .hasMessageContaining("request mix: 'structured:facets' (expected: plain, structured, or structured:SHAPE");
    }

    @Test
    void theStructuredMixSendsPreBuiltBodies() throws IOException {
        Path file = data.resolve("set.tsv");
        QuerySetFile.write(TestQuerySets.withCategories("high_term", "phrase", "prefix"), file);
        RequestSource source = Workload.load(file, data, 1, out)
                .requests("high_term=5,phrase=1,prefix=1", RequestOptions.NONE, RequestMix.STRUCTURED, 9);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long length = 0;
        for (int i = 0; i < 100_000; i++) {
            length += source.next().body().readableBytes();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            length += source.next().body().readableBytes();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(length).isPositive();
        assertThat(allocated).as("bytes allocated by 100,000 requests").isLessThan(10_000);
    }
}
