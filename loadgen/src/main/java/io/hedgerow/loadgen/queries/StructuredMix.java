package io.hedgerow.loadgen.queries;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.loadgen.scenario.RequestOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The structured request mix ({@code --request-mix structured}): each query string of a set as the
 * JSON body of {@code POST /search} in one of five {@link Shape shapes}, with the blend of
 * non-scoring filters, field sorts, pages and facets that applications built on a search engine
 * send, over the Europarl demo's typed fields ({@code lang} keyword, {@code date} date, {@code
 * body_length} long).
 *
 * <p>Every body is built here, once: {@link #body(int, int)} of each shape for each query, with
 * the shape's details (which language, which years, which sort, which page, which facets) drawn from
 * the seed. A run then draws a shape per request by its weight ({@link #pickShape}), which takes
 * constant time and allocates nothing, and sends the pre-built body: the same queries as the plain
 * mix of the same seed, in the same order, asked in other shapes.
 *
 * <p><b>Assumptions and guarantees.</b> Immutable once built; {@link #pickShape} uses the caller's
 * random source. The same queries, options and seed give the same bodies.
 */
public final class StructuredMix {
    /** The shapes of a structured search, with their share of requests (percent, summing to 100). */
    public enum Shape {
        /** The query and the run's options only, in score order. */
        PLAIN(20),
        /**
         * Plus a non-scoring {@code filter}, one of five alike: a {@code term} on {@code lang}; {@code
         * terms} on 2 to 4 languages; a {@code range} of 1 to 5 years on {@code date}; a {@code range}
         * on {@code body_length}; a {@code bool} of languages and years without the shortest bodies.
         */
        FILTERED(25),
        /**
         * Sorted by {@code date} or {@code body_length}, descending or ascending (one of four alike),
         * the score breaking ties.
         */
        SORTED(20),
        /** A later page in score order: {@code from} k, 2k ... 5k (10 to 50 with the default k=10). */
        PAGED(15),
        /**
         * Plus {@code aggs}, one of five alike: {@code terms} on {@code lang}; a yearly {@code
         * date_histogram} on {@code date}; {@code stats} on {@code body_length}; a {@code range} on
         * {@code body_length} (four buckets); or a facet panel of the terms, the histogram and the range.
         */
        FACETED(20);

        private final int percent;

        Shape(int percent) {
            this.percent = percent;
        }

        public int percent() {
            return percent;
        }

        /** {@code plain 20%, filtered 25%, ...}, for help texts and reports. */
        public static String describe() {
            StringBuilder text = new StringBuilder();
            for (Shape shape : values()) {
                text.append(text.isEmpty() ? "" : ", ").append(shape.name().toLowerCase(Locale.ROOT)).append(' ')
                        .append(shape.percent).append('%');
            }
            return text.toString();
        }
    }

    /** The Europarl demo's {@code lang} values (its language guesser's codes). */
    static final List<String> LANGUAGES = List.of("bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "hu",
            "it", "lt", "lv", "nl", "pl", "pt", "ro", "sk", "sl", "sv");
    /** The years of the demo's debates. */
    static final int FIRST_YEAR = 1996;
    static final int LAST_YEAR = 2011;
    /** The most pages a paged search skips. */
    static final int MAX_PAGE = 5;
    /** k when the run's options do not set it: the root's default. */
    private static final int DEFAULT_K = 10;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String[][] bodies;
    private final AliasTable shapes;

    private StructuredMix(String[][] bodies) {
        this.bodies = bodies;
        double[] weights = Arrays.stream(Shape.values()).mapToDouble(Shape::percent).toArray();
        this.shapes = new AliasTable(weights);
    }

    /**
     * Builds every shape's body for each of {@code queries}, each with {@code options} (but their
     * routing, which this mix does not send).
     *
     * @throws IllegalArgumentException when {@code options} name routing values
     */
    public static StructuredMix build(List<String> queries, RequestOptions options, long seed) {
        if (options != null && options.routing() != null) {
            throw new IllegalArgumentException("routing: '" + options.routing() + "' (expected: none with the structured"
                    + " request mix, which does not send routing values)");
        }
        ObjectNode common = NODES.objectNode();
        if (options != null) {
            ObjectNode given = JSON.valueToTree(options); // its own JSON names are the body's (NON_NULL: only those set)
            common.setAll(given);
        }
        int k = options != null && options.k() != null ? options.k() : DEFAULT_K;
        // Its own stream: the details drawn here change nothing in which queries a run sends.
        SplittableRandom random = new SplittableRandom(seed ^ 0x57C0FFEEL);
        Shape[] all = Shape.values();
        String[][] bodies = new String[all.length][queries.size()];
        for (int i = 0; i < queries.size(); i++) {
            for (Shape shape : all) {
                ObjectNode body = NODES.objectNode().put("query", queries.get(i));
                body.setAll(common);
                switch (shape) {
                    case PLAIN -> { }
                    case FILTERED -> body.set("filter", filter(random));
                    case SORTED -> body.set("sort", sort(random));
                    case PAGED -> body.put("from", k * (1 + random.nextInt(MAX_PAGE)));
                    case FACETED -> body.set("aggs", aggs(random));
                }
                bodies[shape.ordinal()][i] = body.toString();
            }
        }
        return new StructuredMix(bodies);
    }

    /** The number of queries. */
    public int size() {
        return bodies[0].length;
    }

    /** The body of query {@code query} (an index into the list it was built from) in shape {@code shape} (an ordinal). */
    public String body(int shape, int query) {
        return bodies[shape][query];
    }

    /** The ordinal of the next request's {@link Shape}, drawn by the shapes' weights. */
    public int pickShape(SplittableRandom random) {
        return shapes.pick(random);
    }

    private static ObjectNode filter(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0 -> term("lang", language(random));
            case 1 -> languages(random, 2 + random.nextInt(3));
            case 2 -> years(random);
            case 3 -> {
                int from = 300 + 100 * random.nextInt(10); // 300..1200 characters
                yield range("body_length", from, from + 200 + 100 * random.nextInt(9));
            }
            default -> {
                ObjectNode bool = NODES.objectNode();
                ArrayNode must = bool.putArray("must");
                must.add(languages(random, 2 + random.nextInt(4)));
                must.add(years(random));
                ObjectNode shortest = NODES.objectNode();
                shortest.putObject("range").putObject("body_length").put("lt", 400);
                bool.putArray("must_not").add(shortest);
                ObjectNode filter = NODES.objectNode();
                filter.set("bool", bool);
                yield filter;
            }
        };
    }

    private static ArrayNode sort(SplittableRandom random) {
        ArrayNode sort = NODES.arrayNode();
        sort.addObject().put(random.nextBoolean() ? "date" : "body_length", random.nextBoolean() ? "desc" : "asc");
        sort.add("_score");
        return sort;
    }

    private static ObjectNode aggs(SplittableRandom random) {
        ObjectNode aggs = NODES.objectNode();
        int kind = random.nextInt(5);
        if (kind == 0 || kind == 4) {
            aggs.putObject("langs").putObject("terms").put("field", "lang");
        }
        if (kind == 1 || kind == 4) {
            aggs.putObject("years").putObject("date_histogram").put("field", "date").put("calendar_interval", "year");
        }
        if (kind == 2) {
            aggs.putObject("length_stats").putObject("stats").put("field", "body_length");
        }
        if (kind == 3 || kind == 4) {
            ObjectNode range = aggs.putObject("lengths").putObject("range").put("field", "body_length");
            ArrayNode ranges = range.putArray("ranges");
            ranges.addObject().put("key", "short").put("to", 800);
            ranges.addObject().put("key", "medium").put("from", 800).put("to", 1100);
            ranges.addObject().put("key", "long").put("from", 1100).put("to", 1400);
            ranges.addObject().put("key", "longest").put("from", 1400);
        }
        return aggs;
    }

    private static String language(SplittableRandom random) {
        return LANGUAGES.get(random.nextInt(LANGUAGES.size()));
    }

    private static ObjectNode term(String field, String value) {
        ObjectNode filter = NODES.objectNode();
        filter.putObject("term").put(field, value);
        return filter;
    }

    /** {@code terms} on {@code count} distinct languages. */
    private static ObjectNode languages(SplittableRandom random, int count) {
        List<String> picked = new ArrayList<>(LANGUAGES);
        ObjectNode filter = NODES.objectNode();
        ArrayNode values = filter.putObject("terms").putArray("lang");
        for (int n = 0; n < count; n++) {
            values.add(picked.remove(random.nextInt(picked.size())));
        }
        return filter;
    }

    /** A {@code range} of 1 to 5 whole years on {@code date}, within the debates' years. */
    private static ObjectNode years(SplittableRandom random) {
        int first = FIRST_YEAR + random.nextInt(LAST_YEAR - FIRST_YEAR + 1);
        int end = Math.min(first + 1 + random.nextInt(5), LAST_YEAR + 1);
        ObjectNode filter = NODES.objectNode();
        filter.putObject("range").putObject("date").put("gte", first + "-01-01").put("lt", end + "-01-01");
        return filter;
    }

    private static ObjectNode range(String field, long gte, long lt) {
        ObjectNode filter = NODES.objectNode();
        filter.putObject("range").putObject(field).put("gte", gte).put("lt", lt);
        return filter;
    }
}
