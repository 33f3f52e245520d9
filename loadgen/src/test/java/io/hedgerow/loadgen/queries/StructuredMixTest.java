package io.hedgerow.loadgen.queries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import io.hedgerow.loadgen.queries.StructuredMix.Shape;
import io.hedgerow.loadgen.scenario.RequestOptions;
import io.hedgerow.root.http.RootSearchParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StructuredMixTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** As a load run sends them: the server's defaults, but cache=false. */
    private static final RequestOptions RUN = new RequestOptions(null, null, null, null, null, null, null, null, false);
    private static final List<String> QUERIES = queries(300);

    @Test
    void theSameSeedBuildsTheSameBodiesAndAnotherSeedOthers() {
        StructuredMix a = StructuredMix.build(QUERIES, RUN, 7);
        StructuredMix b = StructuredMix.build(QUERIES, RUN, 7);
        StructuredMix c = StructuredMix.build(QUERIES, RUN, 8);

        List<String> bodiesA = all(a);
        assertThat(all(b)).isEqualTo(bodiesA);
        assertThat(all(c)).isNotEqualTo(bodiesA);
        SplittableRandom first = new SplittableRandom(3);
        SplittableRandom second = new SplittableRandom(3);
        for (int i = 0; i < 1000; i++) {
            assertThat(a.pickShape(first)).isEqualTo(b.pickShape(second));
        }
    }

    @Test
    void everyBodyIsJsonThatTheRootsOwnParserAcceptsInItsShape() throws IOException {
        StructuredMix mix = StructuredMix.build(QUERIES, RUN, 42);
        Map<String, Integer> aggKinds = new java.util.HashMap<>();
        Set<String> filterKinds = new HashSet<>();
        Set<String> sortKeys = new HashSet<>();
        Set<Integer> froms = new HashSet<>();
        for (Shape shape : Shape.values()) {
            for (int i = 0; i < mix.size(); i++) {
                String body = mix.body(shape.ordinal(), i);
                JsonNode tree = JSON.readTree(body);
                assertThat(tree.get("query").asText()).isEqualTo(QUERIES.get(i));
                assertThat(tree.get("cache").asBoolean(true)).as("the run's options, in %s", body).isFalse();

                SearchRequest request = RootSearchParser.parse(body);

                assertThat(request.query()).isEqualTo(QUERIES.get(i));
                assertThat(request.cache()).isFalse();
                assertThat(request.k()).isEqualTo(SearchRequest.DEFAULT_K);
                assertThat(request.snippets()).as("the default request's snippets").isTrue();
                assertThat(request.filter() != null).as("a filter in %s", body).isEqualTo(shape == Shape.FILTERED);
                assertThat(!request.sort().isEmpty()).as("a sort in %s", body).isEqualTo(shape == Shape.SORTED);
                assertThat(request.from() > 0).as("a page in %s", body).isEqualTo(shape == Shape.PAGED);
                assertThat(!request.aggs().isEmpty()).as("aggs in %s", body).isEqualTo(shape == Shape.FACETED);
                switch (shape) {
                    case FILTERED -> filterKinds.add(tree.get("filter").fieldNames().next()
                            + (tree.get("filter").has("range") ? tree.get("filter").get("range").fieldNames().next() : ""));
                    case SORTED -> {
                        assertThat(request.sort()).hasSize(2);
                        assertThat(request.sort().get(1)).isEqualTo(new SortField(SortField.SCORE, true));
                        sortKeys.add(request.sort().get(0).field() + (request.sort().get(0).descending() ? " desc" : " asc"));
                    }
                    case PAGED -> froms.add(request.from());
                    case FACETED -> request.aggs().values()
                            .forEach(agg -> aggKinds.merge(agg.getClass().getSimpleName(), 1, Integer::sum));
                    case PLAIN -> { }
                }
            }
        }
        assertThat(filterKinds).containsExactlyInAnyOrder("term", "terms", "rangedate", "rangebody_length", "bool");
        assertThat(sortKeys).containsExactlyInAnyOrder("date desc", "date asc", "body_length desc", "body_length asc");
        assertThat(froms).containsExactlyInAnyOrder(10, 20, 30, 40, 50);
        assertThat(aggKinds.keySet()).containsExactlyInAnyOrder(Aggregation.Terms.class.getSimpleName(),
                Aggregation.DateHistogram.class.getSimpleName(), Aggregation.Stats.class.getSimpleName(),
                Aggregation.Range.class.getSimpleName());
    }

    @Test
    void carriesTheRunsOptionsIntoEveryBodyAndPagesByItsK() {
        RequestOptions options = new RequestOptions(25, 800L, false, null, "tied", null, null, "batch", false, 5000);
        StructuredMix mix = StructuredMix.build(QUERIES, options, 1);

        for (Shape shape : Shape.values()) {
            SearchRequest request = RootSearchParser.parse(mix.body(shape.ordinal(), 0));
            assertThat(request.k()).isEqualTo(25);
            assertThat(request.timeoutMillis()).isEqualTo(800L);
            assertThat(request.snippets()).isFalse();
            assertThat(request.totalHitsThreshold()).isEqualTo(5000);
            assertThat(request.priority().name()).isEqualToIgnoringCase("batch");
        }
        for (int i = 0; i < mix.size(); i++) {
            assertThat(RootSearchParser.parse(mix.body(Shape.PAGED.ordinal(), i)).from()).isIn(25, 50, 75, 100, 125);
        }
    }

    @Test
    void drawsEachShapeAsOftenAsItsShareSays() {
        StructuredMix mix = StructuredMix.build(QUERIES, RUN, 42);
        SplittableRandom random = new SplittableRandom(11);
        Map<Shape, Integer> counts = new EnumMap<>(Shape.class);
        int draws = 100_000;
        for (int i = 0; i < draws; i++) {
            counts.merge(Shape.values()[mix.pickShape(random)], 1, Integer::sum);
        }

        int total = 0;
        for (Shape shape : Shape.values()) {
            total += shape.percent();
            // 100,000 draws: a share's standard deviation is under 0.14 points; 0.7 is five of them.
            assertThat(counts.getOrDefault(shape, 0) * 100.0 / draws).as("%s's share", shape)
                    .isCloseTo(shape.percent(), within(0.7));
        }
        assertThat(total).isEqualTo(100);
        assertThat(Shape.describe()).isEqualTo("plain 20%, filtered 25%, sorted 20%, paged 15%, faceted 20%");
    }

    @Test
    void refusesRoutingValuesItWouldNotSend() {
        RequestOptions routed = new RequestOptions(null, null, null, null, null, null, null, null, false, null, "de");

        assertThatThrownBy(() -> StructuredMix.build(QUERIES, routed, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routing: 'de'");
    }

    @Test
    void escapesQueriesThatNeedIt() throws IOException {
        List<String> awkward = List.of("\"human rights\"", "back\\slash", "tab\there", "ünïcödé +must -not");
        StructuredMix mix = StructuredMix.build(awkward, RUN, 5);

        for (Shape shape : Shape.values()) {
            for (int i = 0; i < awkward.size(); i++) {
                assertThat(JSON.readTree(mix.body(shape.ordinal(), i)).get("query").asText()).isEqualTo(awkward.get(i));
                assertThat(RootSearchParser.parse(mix.body(shape.ordinal(), i)).query()).isEqualTo(awkward.get(i));
            }
        }
    }

    private static List<String> all(StructuredMix mix) {
        List<String> bodies = new ArrayList<>();
        for (Shape shape : Shape.values()) {
            for (int i = 0; i < mix.size(); i++) {
                bodies.add(mix.body(shape.ordinal(), i));
            }
        }
        return bodies;
    }

    private static List<String> queries(int count) {
        List<String> queries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            queries.add(switch (i % 3) {
                case 0 -> "parliament" + i;
                case 1 -> "+den +forslaget" + i;
                default -> "\"human rights\" " + i;
            });
        }
        return queries;
    }
}
