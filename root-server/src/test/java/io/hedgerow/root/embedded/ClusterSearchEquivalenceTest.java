package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Filter;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SortField;
import io.hedgerow.api.TotalHits;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.merge.EquivalenceIndex;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand seeded searches through a real cluster (three leaves on loopback serving six
 * partitions of real Lucene indexes, two replicas each, hedging and the result cache on) against
 * the same search on ONE Lucene index holding every document ({@link OneIndexOracle}): sorted by one
 * to three keys (fields, the id, the score), filtered by term, terms, range (long, double, date),
 * exists and bool, paged by {@code from} or walked to the end by {@code from} or {@code search_after},
 * or counted with k=0. The ids, their order, their sort values and the exact totals must be equal;
 * a walk's pages, put end to end, must be the oracle's whole list (no hit twice, none skipped).
 * A third of the requests go over HTTP ({@link HttpSearch}), their search_after sent back as parsed
 * from the JSON; each hedge mode (off, hedged, tied) gets a third; half of the from-paged requests
 * follow a sibling that differs in one thing, which the result cache must not serve in their place.
 *
 * <p>Scores depend on each partition's statistics: a quarter of the text queries sort by
 * {@code _score} first, and are compared with plain Lucene searches of each partition the leaves
 * serve, put in order in Java ({@link OneIndexOracle#sortedIdsByPartitionScores}); other sorts by
 * {@code _score} are of {@code *:*}, which scores every document 1 everywhere.
 *
 * <p>Each request is made from its own seed, printed with a failure: {@link #rerun} takes it.
 */
@Timeout(300)
class ClusterSearchEquivalenceTest {
    /** Fixed so a failure reruns exactly; each request's own seed is drawn from it. */
    static final long SEED = 0x5EA2C4_2026_1128L;
    static final int DOCS = 400;
    static final int REQUESTS = 1000;
    private static final String[] WORDS = {"hedge", "hawthorn", "bramble", "meadow", "ditch", "willow", "oak", "ash"};
    private static final String[] CATEGORIES = {"alpha", "beta", "gamma", "delta", "epsilon", "Zeta", "éta", "ü"};
    private static final String[] SORTABLE = {"cat", "price", "qty", "day", "flag", "id"};
    private static final String[] FILTERABLE = {"cat", "price", "qty", "day", "flag", "title"};

    @TempDir
    static Path dir;
    private static EmbeddedCluster cluster;
    private static OneIndexOracle oracle;
    private static HttpClient http;
    /** Plain Lucene over each partition the leaves serve: the scores of a score-sorted text query. */
    private static final List<IndexSearcher> partitions = new ArrayList<>();

    /** Few distinct values per field (ties that only the id breaks), gaps, and multi-valued fields. */
    static List<SourceDocument> documents(Random random) {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            StringBuilder title = new StringBuilder();
            for (int w = 1 + random.nextInt(4); w > 0; w--) {
                title.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            fields.put("title", title.toString().strip());
            if (random.nextInt(8) != 0) {
                fields.put("cat", random.nextInt(4) == 0 ? List.of(category(random), category(random), category(random))
                        : category(random));
            }
            if (random.nextInt(8) != 0) {
                fields.put("price", random.nextInt(5) == 0 ? List.of(price(random), price(random)) : price(random));
            }
            if (random.nextInt(8) != 0) {
                fields.put("qty", random.nextInt(4) == 0 ? List.of(qty(random), qty(random), qty(random)) : qty(random));
            }
            if (random.nextInt(8) != 0) {
                fields.put("day", random.nextInt(5) == 0 ? List.of(day(random), day(random)) : day(random));
            }
            if (random.nextInt(8) != 0) {
                fields.put("flag", random.nextInt(6) == 0 ? List.of("true", "false") : Boolean.toString(random.nextBoolean()));
            }
            docs.add(new SourceDocument("d" + random.nextInt(10_000) + "-" + i, fields, i + 1));
        }
        return docs;
    }

    private static String category(Random random) {
        return CATEGORIES[random.nextInt(CATEGORIES.length)];
    }

    private static String price(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> Double.toString(random.nextInt(2_000_000) / 1000.0 - 1000); // wide, with fractions
            case 1 -> Double.toString(1.0e-7 * (1 + random.nextInt(5))); // printed as 1.0E-7
            default -> Double.toString((random.nextInt(40) - 10) / 4.0);
        };
    }

    private static String qty(Random random) {
        return random.nextInt(10) == 0 ? Long.toString(random.nextLong(-9_000_000_000_000L, 9_000_000_000_000L))
                : Long.toString(random.nextInt(30) - 5);
    }

    /** A date or date-time from 1969 to 2025: some before the epoch (negative millis). */
    private static String day(Random random) {
        long millis = Instant.parse("1969-06-01T00:00:00Z").toEpochMilli()
                + random.nextLong(56L * 365 * 86_400_000L) / 86_400_000L * 86_400_000L;
        Instant at = Instant.ofEpochMilli(millis);
        return switch (random.nextInt(3)) {
            case 0 -> at.toString().substring(0, 10);
            case 1 -> at.plusSeconds(random.nextInt(86_400)).toString();
            default -> Long.toString(millis);
        };
    }

    @BeforeAll
    static void start() throws Exception {
        System.out.println("ClusterSearchEquivalenceTest seed: " + SEED);
        List<SourceDocument> docs = documents(new Random(SEED));
        oracle = new OneIndexOracle(EquivalenceIndex.config(), docs);
        cluster = EmbeddedCluster.builder(dir).documents("equivalence", EquivalenceIndex.config(), docs)
                .leaves(3).partitions(6).replicas(2).http(0).start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (int p = 0; p < cluster.manifest().partitions(); p++) {
            partitions.add(new IndexSearcher(DirectoryReader.open(FSDirectory.open(cluster.index().partitionDir(cluster.manifest(), p)))));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (http != null) {
            http.close();
        }
        for (IndexSearcher partition : partitions) {
            partition.getIndexReader().close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (oracle != null) {
            oracle.close();
        }
    }

    @Test
    void seededSearchesThroughTheClusterMatchOneIndex() throws Exception {
        Random seeds = new Random(SEED);
        int[] modes = new int[Mode.values().length];
        int nonEmpty = 0;
        int scoredText = 0;
        for (int q = 0; q < REQUESTS; q++) {
            long seed = seeds.nextLong();
            Checked checked = rerun(seed);
            modes[checked.mode.ordinal()]++;
            if (checked.matches > 0) {
                nonEmpty++;
            }
            if (checked.partitionScores) {
                scoredText++;
            }
        }
        System.out.println("requests by mode " + java.util.Arrays.toString(modes) + ", matching something: " + nonEmpty
                + ", text queries sorted by their partitions' scores: " + scoredText);
        assertThat(scoredText).as("text queries sorted by score").isGreaterThan(REQUESTS / 20);
        assertThat(nonEmpty).as("requests that matched something").isGreaterThan(REQUESTS / 2);
        for (int count : modes) {
            assertThat(count).as("requests of every mode").isGreaterThan(REQUESTS / 10);
        }
    }

    /**
     * Found by seed 5865551688007368950: a descending sort on a multi-valued field (qty desc) used
     * each document's lowest value (Lucene's default selector) where the docs promise its highest.
     */
    @Test
    void descendingSortOnMultiValuedFieldUsesTheHighestValue() throws Exception {
        assertThat(rerun(5865551688007368950L).matches()).isPositive();
    }

    /**
     * Found by seed -2191106004987769376: the result cache described a filter by its records'
     * toString, so terms ["alpha", "epsilon"] and term "alpha, epsilon" shared a key, and the second
     * search got the first one's hits.
     */
    @Test
    void filtersThatPrintAlikeDoNotShareACachedResult() throws Exception {
        rerun(-2191106004987769376L);
    }

    enum Mode { COUNT, FROM_PAGE, FROM_WALK, AFTER_WALK }

    record Checked(Mode mode, long matches, boolean partitionScores) {
    }

    /** The random search of {@code seed}, run and checked; an assertion error names the seed. */
    static Checked rerun(long seed) throws Exception {
        Random random = new Random(seed);
        String text = random.nextInt(3) == 0 ? "*:*" : WORDS[random.nextInt(WORDS.length)]
                + (random.nextBoolean() ? " " + WORDS[random.nextInt(WORDS.length)] : "");
        Filter filter = random.nextInt(4) == 0 ? null : randomFilter(random, 2);
        List<SortField> sort = randomSort(random, "*:*".equals(text));
        // A quarter of text queries sort by score first (from the seed itself: every other request stays as it was).
        boolean partitionScores = !"*:*".equals(text) && Math.floorMod(seed >> 4, 4) == 0;
        if (partitionScores) {
            List<SortField> scored = new ArrayList<>();
            scored.add(new SortField(SortField.SCORE, Math.floorMod(seed >> 6, 4) != 0)); // mostly highest first
            scored.addAll(sort.subList(0, Math.min(sort.size(), Math.floorMod(seed >> 8, 3))));
            sort = scored;
        }
        Mode mode = Mode.values()[random.nextInt(Mode.values().length)];
        boolean details = random.nextInt(4) == 0;
        // From the seed itself, not its Random, so adding the HTTP path left every request as it was.
        boolean overHttp = Math.floorMod(seed, 3) == 0;
        HedgeMode hedge = HedgeMode.values()[Math.floorMod(seed >> 12, 3)];
        String what = "seed " + seed + "L (rerun: ClusterSearchEquivalenceTest.rerun(" + seed + "L)): " + mode
                + (overHttp ? " over HTTP" : "") + " hedge " + hedge.label() + " '" + text + "' filter " + filter + " sort " + sort;
        try {
            OneIndexOracle.Scored scored = expected(text, filter, sort, partitionScores);
            List<String> expected = scored.ids();
            Map<String, Float> scores = scored.scores();
            long total = expected.size();
            assertThat(oracle.count(text, filter)).as(what + ": the oracle's count").isEqualTo(total);
            SearchRequest.Builder base = SearchRequest.builder(text).filter(filter).exactTotalHits().minCoverage(1.0)
                    .timeoutMillis(30_000).storedFields(details).snippets(details).hedge(hedge);
            switch (mode) {
                case COUNT -> {
                    Page result = search(base.k(0).sort(random.nextBoolean() ? sort : List.of()).build(), overHttp, what);
                    assertThat(result.ids()).as(what).isEmpty();
                    assertTotal(result, total, what);
                }
                case FROM_PAGE -> {
                    int k = 1 + random.nextInt(30);
                    int from = random.nextInt(3) == 0 ? 0 : random.nextInt((int) total + 5);
                    if (random.nextBoolean()) {
                        // A sibling that differs in one thing goes first: the result cache must not
                        // answer the request with the sibling's result.
                        Filter otherFilter = filter != null && random.nextBoolean() ? perturbed(filter) : filter;
                        List<SortField> otherSort = otherFilter != filter ? sort : flipped(sort, random);
                        String sibling = what + " after its sibling, filter " + otherFilter + " sort " + otherSort;
                        OneIndexOracle.Scored siblingScored = expected(text, otherFilter, otherSort, partitionScores);
                        List<String> siblingExpected = siblingScored.ids();
                        Page first = search(base.filter(otherFilter).sort(otherSort).k(k).from(from).build(), overHttp, sibling);
                        checkPage(first, siblingExpected.subList(Math.min(from, siblingExpected.size()),
                                Math.min(from + k, siblingExpected.size())), otherSort, siblingScored.scores(), siblingExpected.size(), sibling);
                        base.filter(filter);
                        what = what + " (after a sibling with filter " + otherFilter + " sort " + otherSort + ")";
                    }
                    Page result = search(base.sort(sort).k(k).from(from).build(), overHttp, what + " from " + from + " k " + k);
                    checkPage(result, expected.subList(Math.min(from, expected.size()), Math.min(from + k, expected.size())),
                            sort, scores, total, what + " from " + from + " k " + k);
                }
                case FROM_WALK -> {
                    int k = pageSize(random, total);
                    List<String> walked = new ArrayList<>();
                    for (int from = 0; ; from += k) {
                        String page = what + " k " + k + " from " + from;
                        Page result = search(base.sort(sort).k(k).from(from).build(), overHttp, page);
                        checkPage(result, expected.subList(Math.min(from, expected.size()),
                                Math.min(from + k, expected.size())), sort, scores, total, page);
                        walked.addAll(result.ids());
                        if (result.ids().size() < k) {
                            break;
                        }
                    }
                    checkWalk(walked, expected, what + " k " + k);
                }
                case AFTER_WALK -> {
                    int k = pageSize(random, total);
                    List<String> walked = new ArrayList<>();
                    List<Object> after = null;
                    while (true) {
                        String page = what + " k " + k + " search_after " + after;
                        Page result = search(base.sort(sort).k(k).searchAfter(after).build(), overHttp, page);
                        int at = walked.size();
                        checkPage(result, expected.subList(Math.min(at, expected.size()), Math.min(at + k, expected.size())),
                                sort, scores, total, page);
                        walked.addAll(result.ids());
                        if (result.ids().size() < k) {
                            break;
                        }
                        after = result.sortValues().getLast(); // as a client sends it back
                    }
                    checkWalk(walked, expected, what + " k " + k);
                }
            }
            return new Checked(mode, total, partitionScores);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("ClusterSearchEquivalenceTest failed at " + what + ": " + e.getMessage(), e);
        }
    }

    /** Pages of at least 1 and few enough that a walk takes at most about 25 searches. */
    private static int pageSize(Random random, long total) {
        return Math.max(1 + random.nextInt(25), (int) Math.ceil(total / 25.0));
    }

    /** One page as a client sees it: ids, each hit's sort values (as parsed from JSON over HTTP), the total. */
    record Page(List<String> ids, List<List<Object>> sortValues, TotalHits totalHits, boolean json) {
    }

    private static Page search(SearchRequest request, boolean overHttp, String what) throws Exception {
        if (overHttp) {
            return HttpSearch.search(http, cluster.httpPort(), request, what);
        }
        SearchResult result = cluster.client().search(request).join();
        assertThat(result.tainted()).as(what + ": every partition answered " + result.coverage() + " " + result.errors()).isFalse();
        return new Page(result.hits().stream().map(Hit::id).toList(), result.hits().stream().map(Hit::sort).toList(),
                result.totalHits(), false);
    }

    private static void assertTotal(Page result, long total, String what) {
        assertThat(result.totalHits()).as(what + ": the exact total").isEqualTo(new TotalHits(total, TotalHits.Relation.EQUAL_TO));
    }

    /** The oracle's order: by the one index, or with scores from each document's own partition. */
    private static OneIndexOracle.Scored expected(String text, Filter filter, List<SortField> sort, boolean partitionScores)
            throws Exception {
        return partitionScores ? oracle.sortedIdsByPartitionScores(text, filter, sort, partitions)
                : new OneIndexOracle.Scored(oracle.sortedIds(text, filter, sort), Map.of());
    }

    private static void checkPage(Page result, List<String> expected, List<SortField> sort, Map<String, Float> scores,
            long total, String what) {
        assertThat(result.ids()).as(what + ": ids in order").isEqualTo(expected);
        for (int i = 0; i < result.ids().size(); i++) {
            String id = result.ids().get(i);
            List<Object> expectedValues = oracle.sortValues(id, sort, scores);
            if (result.json()) { // JSON has one kind of fraction: a score reads back as the double of its float's text
                expectedValues = expectedValues.stream()
                        .map(v -> v instanceof Float f ? (Object) Double.parseDouble(Float.toString(f)) : v).toList();
            }
            assertThat(result.sortValues().get(i)).as(what + ": sort values of " + id).isEqualTo(expectedValues);
        }
        assertTotal(result, total, what);
    }

    private static void checkWalk(List<String> walked, List<String> expected, String what) {
        Set<String> seen = new HashSet<>();
        for (String id : walked) {
            assertThat(seen.add(id)).as(what + ": " + id + " on two pages").isTrue();
        }
        assertThat(walked).as(what + ": the pages end to end").isEqualTo(expected);
    }

    /** {@code sort} with one key's direction turned. */
    private static List<SortField> flipped(List<SortField> sort, Random random) {
        List<SortField> other = new ArrayList<>(sort);
        int i = random.nextInt(other.size());
        other.set(i, new SortField(other.get(i).field(), !other.get(i).descending()));
        return other;
    }

    /**
     * {@code filter} with its first terms or range changed so that it matches other documents but
     * could be described alike: two keywords joined into one ("a, b"), one such value split in two,
     * an inclusive bound made exclusive. The filter itself when it has none of them.
     */
    private static Filter perturbed(Filter filter) {
        return switch (filter) {
            case Filter.Terms terms when terms.values().size() > 1 && terms.field().equals("cat") -> Filter.term(terms.field(), String.join(", ", terms.values()));
            case Filter.Terms terms when terms.values().getFirst().contains(", ") ->
                    Filter.terms(terms.field(), List.of(terms.values().getFirst().split(", ")));
            case Filter.Terms terms -> filter;
            case Filter.Range range when range.gte() != null -> new Filter.Range(range.field(), null, range.gte(), range.lte(), range.lt());
            case Filter.Range range when range.lte() != null -> new Filter.Range(range.field(), range.gte(), range.gt(), null, range.lte());
            case Filter.Range range -> filter;
            case Filter.Exists exists -> filter;
            case Filter.Bool bool -> {
                for (List<Filter> clauses : List.of(bool.must(), bool.should(), bool.mustNot())) {
                    for (int i = 0; i < clauses.size(); i++) {
                        Filter changed = perturbed(clauses.get(i));
                        if (changed != clauses.get(i)) {
                            List<Filter> copy = new ArrayList<>(clauses);
                            copy.set(i, changed);
                            yield new Filter.Bool(clauses == bool.must() ? copy : bool.must(),
                                    clauses == bool.should() ? copy : bool.should(), clauses == bool.mustNot() ? copy : bool.mustNot());
                        }
                    }
                }
                yield filter;
            }
        };
    }

    private static List<SortField> randomSort(Random random, boolean constantScore) {
        List<SortField> sort = new ArrayList<>();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            String field = constantScore && random.nextInt(5) == 0 ? SortField.SCORE : SORTABLE[random.nextInt(SORTABLE.length)];
            sort.add(new SortField(field, random.nextBoolean()));
        }
        return sort;
    }

    private static Filter randomFilter(Random random, int depth) {
        return switch (random.nextInt(depth > 0 ? 8 : 7)) {
            case 0 -> random.nextBoolean() ? Filter.term("cat", category(random))
                    : Filter.terms("cat", List.of(category(random), category(random)));
            case 1 -> random.nextBoolean() ? Filter.term("qty", Integer.toString(random.nextInt(30) - 5))
                    : Filter.terms("qty", List.of(Integer.toString(random.nextInt(30) - 5), Integer.toString(random.nextInt(30))));
            case 2 -> {
                String low = Double.toString(random.nextInt(40) / 4.0 - 3);
                String high = Double.toString(random.nextInt(40) / 4.0);
                yield switch (random.nextInt(4)) {
                    case 0 -> new Filter.Range("price", low, null, null, null);
                    case 1 -> new Filter.Range("price", null, low, high, null);
                    case 2 -> new Filter.Range("price", null, null, null, high);
                    default -> new Filter.Range("price", low, null, null, high);
                };
            }
            case 3 -> new Filter.Range("qty", random.nextBoolean() ? Integer.toString(random.nextInt(30) - 5) : null, null,
                    null, Integer.toString(random.nextInt(30)));
            case 4 -> {
                String low = day(random);
                String high = day(random);
                yield random.nextBoolean() ? new Filter.Range("day", low.compareTo(high) < 0 ? low : null, null, null, high)
                        : new Filter.Range("day", null, low, high, null);
            }
            case 5 -> Filter.term("flag", Boolean.toString(random.nextBoolean()));
            case 6 -> Filter.exists(FILTERABLE[random.nextInt(FILTERABLE.length)]);
            default -> {
                List<Filter> should = random.nextBoolean()
                        ? List.of(randomFilter(random, depth - 1), randomFilter(random, depth - 1)) : List.of();
                List<Filter> mustNot = random.nextBoolean() ? List.of(randomFilter(random, depth - 1)) : List.of();
                List<Filter> must = random.nextBoolean() || (should.isEmpty() && mustNot.isEmpty())
                        ? List.of(randomFilter(random, depth - 1)) : List.of();
                yield new Filter.Bool(must, should, mustNot);
            }
        };
    }
}
