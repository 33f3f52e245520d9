package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.Ticker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.SimpleCollector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sliced search against Lucene's own unsliced search over a seeded random index of several
 * segments with deleted documents: same hits, same scores, same order.
 */
class SlicedSearchTest {
    private static final long SEED = Long.getLong("tests.seed", 0x511CEDL);
    private static final int DOCS = 6000;
    private static final String FIELD = "body";
    /** Word i is drawn with weight 1/(i+1) (Zipf), so a few words are in most documents. */
    private static final String[] WORDS = {
        "the", "hedge", "field", "meadow", "lane", "oak", "brook", "hazel", "wren", "thrush", "willow", "badger",
        "nettle", "sparrow", "ditch", "elder", "bramble", "stile", "gate", "blackbird", "hawthorn", "holly", "ivy",
        "rook", "vole", "shrew", "moth", "beetle", "ash", "alder", "rowan", "linnet", "yellowhammer", "dormouse",
        "hedgehog", "weasel", "stoat", "kestrel", "owl", "primrose"};

    private static final String RARE_WORD = "kingfisher";

    @TempDir
    static Path dir;

    private static Directory directory;
    private static DirectoryReader reader;
    private static IndexSearcher searcher;
    private static double[] cumulativeWeights;

    @BeforeAll
    static void buildIndex() throws IOException {
        System.out.println("SlicedSearchTest seed " + SEED + " (rerun with -Dtests.seed=" + SEED + ")");
        Random random = new Random(SEED);
        cumulativeWeights = new double[WORDS.length];
        double sum = 0;
        for (int i = 0; i < WORDS.length; i++) {
            sum += 1.0 / (i + 1);
            cumulativeWeights[i] = sum;
        }
        directory = new MMapDirectory(dir);
        // Small flushes and no merges: several segments, so the search crosses segment boundaries.
        IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer())
                .setMaxBufferedDocs(1500).setMergePolicy(NoMergePolicy.INSTANCE);
        try (IndexWriter writer = new IndexWriter(directory, config)) {
            for (int i = 0; i < DOCS; i++) {
                Document doc = new Document();
                doc.add(new StringField("id", Integer.toString(i), Field.Store.NO));
                String text = text(random, 3 + random.nextInt(40));
                // A rare word, in three documents of different segments: what a cheap query finds.
                doc.add(new TextField(FIELD, i % 2000 == 1 ? text + " " + RARE_WORD : text, Field.Store.NO));
                writer.addDocument(doc);
            }
            // Deletions leave live-docs bitsets, which the sliced search must honour per window.
            for (int i = 0; i < DOCS; i += 7) {
                writer.deleteDocuments(new Term("id", Integer.toString(i)));
            }
        }
        reader = DirectoryReader.open(directory);
        searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null);
        assertThat(reader.leaves()).hasSizeGreaterThanOrEqualTo(4);
        assertThat(reader.hasDeletions()).isTrue();
    }

    @AfterAll
    static void close() throws IOException {
        reader.close();
        directory.close();
    }

    @Test
    void tinySlicesFindTheSameHitsAsTheUnslicedSearchForManyQueries() throws IOException {
        Random random = new Random(SEED + 1);
        int compared = 0;
        int exactTotals = 0;
        for (int i = 0; i < 300; i++) {
            Query query = randomQuery(random);
            int k = new int[] {1, 10, 100}[random.nextInt(3)];
            int threshold = new int[] {10, 1000, Integer.MAX_VALUE}[random.nextInt(3)];
            int windowDocs = 1 + random.nextInt(300);
            String what = "query " + i + " " + query + " k=" + k + " threshold=" + threshold + " window=" + windowDocs;

            TopDocs expected = searcher.search(query, new TopScoreDocCollectorManager(k, null, threshold));
            SlicedSearch<TopScoreDocCollector, TopDocs> sliced = SlicedSearch.start(searcher, query,
                    new TopScoreDocCollectorManager(k, null, threshold), null, countingTicker(),
                    SlicedSearch.Windows.fixed(windowDocs));
            // Every clock read moves time on by 1 ns: a budget of 1 ns is one unit of work per step.
            while (sliced.step(1)) {
                assertThat(sliced.done()).isFalse();
            }
            TopDocs actual = sliced.result();

            assertThat(describe(actual.scoreDocs)).as(what).isEqualTo(describe(expected.scoreDocs));
            assertThat(actual.totalHits.relation()).as(what).isEqualTo(expected.totalHits.relation());
            if (expected.totalHits.relation() == TotalHits.Relation.EQUAL_TO) {
                assertThat(actual.totalHits.value()).as(what).isEqualTo(expected.totalHits.value());
                exactTotals++;
            } else {
                // Past the threshold the count is a lower bound; both reached it.
                assertThat(actual.totalHits.value()).as(what).isGreaterThanOrEqualTo(threshold);
            }
            assertThat(sliced.cutShort()).isFalse();
            assertThat(sliced.steps()).as(what).isEqualTo(sliced.units());
            compared++;
        }
        assertThat(compared).isEqualTo(300);
        assertThat(exactTotals).as("queries with exact totals").isGreaterThan(100);
    }

    @Test
    void anExpensiveQueryTakesManySlicesAndACheapOneFinishesInItsFirst() throws IOException {
        BooleanQuery.Builder broad = new BooleanQuery.Builder();
        for (int i = 0; i < 30; i++) {
            broad.add(new TermQuery(new Term(FIELD, WORDS[i])), Occur.SHOULD);
        }
        // A budget of 24 clock reads, as if each read were one unit of time: a window costs three reads
        // (the step's and the window's own two), so a step does about eight units.
        long budget = 24;

        SlicedSearch<TopScoreDocCollector, TopDocs> expensive = SlicedSearch.start(searcher, broad.build(),
                new TopScoreDocCollectorManager(10, null, Integer.MAX_VALUE), null, countingTicker(),
                SlicedSearch.Windows.fixed(256));
        SlicedSearch<TopScoreDocCollector, TopDocs> cheap = SlicedSearch.start(searcher,
                new TermQuery(new Term(FIELD, RARE_WORD)), new TopScoreDocCollectorManager(10, null, 1000), null,
                countingTicker(), SlicedSearch.Windows.fixed(256));

        int expensiveSteps = stepsToEnd(expensive, budget);
        int cheapSteps = stepsToEnd(cheap, budget);

        // Nearly every document matches, so every doc id is in some window: ~6000 / 256 windows.
        assertThat(expensive.windows()).isGreaterThanOrEqualTo(DOCS / 256);
        assertThat(expensiveSteps).isGreaterThan(3);
        assertThat(cheapSteps).isEqualTo(1);
        assertThat(cheap.result().totalHits.value()).isEqualTo(3);
    }

    @Test
    void theSetUpIsAUnitOfWorkOfItsOwnThatAStepCanEndAfter() throws IOException {
        SlicedSearch<TopScoreDocCollector, TopDocs> search = SlicedSearch.start(searcher, new PrefixQuery(new Term(FIELD,
                "h")), new TopScoreDocCollectorManager(10, null, 1000), null, countingTicker(), SlicedSearch.Windows.DEFAULT);
        assertThat(search.units()).as("nothing is done before the first step").isZero();

        assertThat(search.step(0)).isTrue();

        assertThat(search.units()).as("the rewrite and weight only").isEqualTo(1);
        assertThat(search.windows()).isZero();
        assertThat(search.step(0)).isTrue();
        assertThat(search.units()).as("then the first segment's scorer").isEqualTo(2);
        assertThat(search.windows()).isZero();
    }

    @Test
    void windowsStartSmallAndGrowByHalfUpToTheirLargest() throws IOException {
        SlicedSearch<TopScoreDocCollector, TopDocs> growing = SlicedSearch.start(searcher, MatchAllDocsQuery.INSTANCE,
                new TopScoreDocCollectorManager(10, null, Integer.MAX_VALUE), null, countingTicker(),
                new SlicedSearch.Windows(100, 1000));
        growing.run();

        // 100, 150, 225, 337, 505, 757, 1000, 1000...: far fewer windows than 100 doc ids each would take,
        // more than 1,000 each would (every segment ends a window early).
        assertThat(growing.windows()).isLessThan(DOCS / 100 / 3).isGreaterThan(DOCS / 1000);
        assertThat(growing.result().totalHits.value()).isEqualTo(reader.numDocs());
        assertThat(new SlicedSearch.Windows(100, 1000).grow(100)).isEqualTo(150);
        assertThat(new SlicedSearch.Windows(100, 1000).grow(900)).isEqualTo(1000);
        assertThat(SlicedSearch.Windows.fixed(7).grow(7)).isEqualTo(7);
    }

    @Test
    void aStepNeverScoresASliverOfAWindowWithWhatIsLeftOfItsBudget() throws IOException {
        // Work is documents collected, plus a fixed cost for each clock read (as a disjunction pays per
        // window for visiting its clauses): a step's last window used to be sized to whatever was left.
        AtomicLong work = new AtomicLong();
        Ticker workClock = () -> work.addAndGet(20);
        CollectorManager<SimpleCollector, Long> counting = new CollectorManager<>() {
            @Override
            public SimpleCollector newCollector() {
                return new SimpleCollector() {
                    @Override
                    public void collect(int doc) {
                        work.incrementAndGet();
                    }

                    @Override
                    public ScoreMode scoreMode() {
                        return ScoreMode.COMPLETE_NO_SCORES;
                    }
                };
            }

            @Override
            public Long reduce(Collection<SimpleCollector> collectors) {
                return work.get();
            }
        };
        SlicedSearch<SimpleCollector, Long> search = SlicedSearch.start(searcher, MatchAllDocsQuery.INSTANCE, counting,
                null, workClock, new SlicedSearch.Windows(100, 4096));

        while (search.step(400)) {
            // steps of 400 units of work
        }

        assertThat(search.windows()).isGreaterThan(DOCS / 400);
        assertThat(search.smallestWindowDocs()).isEqualTo(100);
    }

    @Test
    void endsCutShortWithWhatItFoundWhenTheTimeoutSaysSo() throws IOException {
        AtomicLong checks = new AtomicLong();
        SlicedSearch<TopScoreDocCollector, TopDocs> search = SlicedSearch.start(searcher, MatchAllDocsQuery.INSTANCE,
                new TopScoreDocCollectorManager(10, null, Integer.MAX_VALUE), () -> checks.incrementAndGet() > 5,
                countingTicker(), SlicedSearch.Windows.fixed(100));

        assertThat(search.step(Long.MAX_VALUE)).isFalse();

        assertThat(search.cutShort()).isTrue();
        // The set-up, the first segment's scorer, then three windows of 100 doc ids.
        assertThat(search.units()).isEqualTo(5);
        assertThat(search.windows()).isEqualTo(3);
        // Three windows of 100 doc ids of the first segment, less its deleted documents.
        assertThat(search.result().totalHits.value()).isBetween(250L, 300L);
        assertThat(search.step(1)).isFalse();
    }

    @Test
    void refusesAResultBeforeTheEndAndANegativeBudget() throws IOException {
        SlicedSearch<TopScoreDocCollector, TopDocs> search = SlicedSearch.start(searcher, MatchAllDocsQuery.INSTANCE,
                new TopScoreDocCollectorManager(10, null, 1000), null, countingTicker(), SlicedSearch.Windows.fixed(100));
        assertThat(search.step(1)).isTrue();

        assertThatThrownBy(search::result).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("search not done after 0 windows");
        assertThatThrownBy(() -> search.step(-1)).hasMessage("budgetNanos: -1 (expected: >= 0)");
        assertThatThrownBy(() -> SlicedSearch.Windows.fixed(0))
                .hasMessage("windows: 0..0 doc ids (expected: 1 <= initial <= max)");
    }

    private static int stepsToEnd(SlicedSearch<?, ?> search, long budget) throws IOException {
        int steps = 1;
        while (search.step(budget)) {
            steps++;
        }
        return steps;
    }

    /** A clock that moves on by one nanosecond every time it is read. */
    private static Ticker countingTicker() {
        AtomicLong reads = new AtomicLong();
        return reads::incrementAndGet;
    }

    private static List<String> describe(ScoreDoc[] hits) {
        List<String> described = new ArrayList<>();
        for (ScoreDoc hit : hits) {
            described.add(hit.doc + ":" + Float.floatToIntBits(hit.score) + ":" + hit.shardIndex);
        }
        return described;
    }

    private static String text(Random random, int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append(i == 0 ? "" : " ").append(word(random));
        }
        return text.toString();
    }

    private static String word(Random random) {
        double x = random.nextDouble() * cumulativeWeights[cumulativeWeights.length - 1];
        for (int i = 0; i < cumulativeWeights.length; i++) {
            if (x < cumulativeWeights[i]) {
                return WORDS[i];
            }
        }
        return WORDS[WORDS.length - 1];
    }

    private static Term term(Random random) {
        return new Term(FIELD, word(random));
    }

    /** Queries of the shapes users send: terms, AND, OR (small and broad), NOT, phrases, expansions. */
    private static Query randomQuery(Random random) {
        switch (random.nextInt(9)) {
            case 0:
                return new TermQuery(term(random));
            case 1: {
                BooleanQuery.Builder and = new BooleanQuery.Builder();
                for (int i = 0; i < 2 + random.nextInt(3); i++) {
                    and.add(new TermQuery(term(random)), Occur.MUST);
                }
                return and.build();
            }
            case 2:
            case 3: {
                BooleanQuery.Builder or = new BooleanQuery.Builder();
                int clauses = random.nextBoolean() ? 2 + random.nextInt(3) : 10 + random.nextInt(25);
                for (int i = 0; i < clauses; i++) {
                    or.add(new TermQuery(term(random)), Occur.SHOULD);
                }
                return or.build();
            }
            case 4: {
                BooleanQuery.Builder mixed = new BooleanQuery.Builder()
                        .add(new TermQuery(term(random)), Occur.MUST)
                        .add(new TermQuery(term(random)), Occur.SHOULD)
                        .add(new TermQuery(term(random)), Occur.SHOULD)
                        .add(new TermQuery(term(random)), Occur.MUST_NOT);
                return mixed.build();
            }
            case 5:
                return new PhraseQuery(random.nextInt(3), FIELD, word(random), word(random));
            case 6:
                return new PrefixQuery(new Term(FIELD, word(random).substring(0, 1)));
            case 7:
                return new WildcardQuery(new Term(FIELD, "*" + word(random).substring(1, 2) + "*"));
            default:
                return new FuzzyQuery(term(random), 1 + random.nextInt(2));
        }
    }
}
