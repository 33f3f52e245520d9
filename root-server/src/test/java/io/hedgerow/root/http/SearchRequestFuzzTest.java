package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.hedgerow.api.SearchRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes what a client controls in a search: the URL's query string and the JSON body. Whatever
 * the bytes, the parser returns a valid request or refuses with an {@link ApiException} (a 4xx
 * with a JSON error); any other exception would be a 500 or a dropped connection, and fails.
 *
 * <p>{@code @FuzzTest} methods run their kept corpus ({@code src/test/resources/.../SearchRequestFuzzTestInputs})
 * in every build; with {@code JAZZER_FUZZ=1} Jazzer fuzzes them (docs/benchmarks/overload.md has
 * the long run). The {@code @Test} methods run a seeded random sample of the same targets in every
 * build, so the suite exercises more than the corpus; rerun a failure with its printed seed.
 */
class SearchRequestFuzzTest {
    /** Random inputs per seeded test: 20,000 in the suite; the long run sets -Dhedgerow.fuzz.inputs=1000000. */
    private static final int INPUTS = Integer.getInteger("hedgerow.fuzz.inputs", 20_000);
    private static final SearchRequestParser PARSER = new SearchRequestParser(60_000);
    /** Characters that matter to the query string, JSON and Lucene syntax, and some that do not. */
    private static final String ALPHABET = "qk=&%+;:,.-_*?~^\"'{}[]()\\/ 0123456789abcxyzQKE\u00e9\u4e2d\u0000\n\t";
    private static final List<String> NAMES = List.of("q", "k", "timeout_ms", "snippets", "stored_fields",
            "total_hits_threshold", "hedge", "hedge_after_ms", "explain", "priority", "min_coverage", "cache", "query");

    @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
    void queryStringsAreParsedOrRefusedAs4xx(FuzzedDataProvider data) {
        parseQueryString(data.consumeRemainingAsString());
    }

    @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
    void jsonBodiesAreParsedOrRefusedAs4xx(byte[] body) {
        parseJson(body);
    }

    @Test
    void randomQueryStringsAreParsedOrRefusedAs4xx() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < INPUTS; i++) {
            StringBuilder query = new StringBuilder();
            int parameters = random.nextInt(5);
            for (int p = 0; p < parameters; p++) {
                query.append(p == 0 ? "" : "&").append(NAMES.get(random.nextInt(NAMES.size()))).append('=')
                        .append(randomText(random, 12));
            }
            String input = query.toString();
            try {
                parseQueryString(input);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ", input '" + input + "'", e);
            }
        }
    }

    @Test
    void randomJsonBodiesAreParsedOrRefusedAs4xx() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < INPUTS; i++) {
            StringBuilder json = new StringBuilder("{");
            int fields = random.nextInt(5);
            for (int f = 0; f < fields; f++) {
                json.append(f == 0 ? "" : ",").append('"').append(NAMES.get(random.nextInt(NAMES.size()))).append("\":");
                switch (random.nextInt(4)) {
                    case 0 -> json.append(random.nextLong() >> random.nextInt(64));
                    case 1 -> json.append('"').append(randomText(random, 10)).append('"');
                    case 2 -> json.append(random.nextBoolean());
                    default -> json.append(randomText(random, 6));
                }
            }
            if (random.nextInt(8) != 0) {
                json.append('}');
            }
            byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
            try {
                parseJson(body);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ", body " + json, e);
            }
        }
    }

    private static String randomText(Random random, int maxLength) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(maxLength + 1);
        for (int i = 0; i < length; i++) {
            text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    private static void parseQueryString(String queryString) {
        Map<String, List<String>> parameters;
        try {
            parameters = new QueryStringDecoder("/search?" + queryString).parameters();
        } catch (IllegalArgumentException e) {
            return; // a malformed %-escape: the handler answers 400 before the parser (HttpApiHandler)
        }
        try {
            checkValid(PARSER.fromParameters(parameters));
        } catch (ApiException e) {
            assertRefusal(e);
        }
    }

    private static void parseJson(byte[] body) {
        ByteBuf content = Unpooled.wrappedBuffer(body);
        try {
            checkValid(PARSER.fromJson(content));
        } catch (ApiException e) {
            assertRefusal(e);
        } finally {
            content.release();
        }
    }

    private static void checkValid(SearchRequest request) {
        assertThat(request.k()).isBetween(0, SearchRequest.MAX_K);
        assertThat(request.totalHitsThreshold()).isBetween(1, SearchRequest.MAX_TOTAL_HITS_THRESHOLD);
        assertThat(request.query()).isNotBlank();
    }

    private static void assertRefusal(ApiException e) {
        assertThat(e.status().code()).as(e.detail()).isBetween(400, 499);
        assertThat(e.code()).isNotBlank();
        assertThat(e.detail()).isNotBlank().doesNotContain("\tat ", "Exception:");
    }
}
