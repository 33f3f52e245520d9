package io.hedgerow.loadgen.queries;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.index.Analyzers;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.QueryParsing;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class QuerySetGeneratorTest {
    private static final int PER_CATEGORY = 40;
    private static final long SEED = 42;

    private static OpenIndex index;
    private static GeneratedQueries generated;

    @BeforeAll
    static void generate() throws IOException {
        index = OpenIndex.open(SampleIndex.store());
        generated = QuerySetGenerator.create(index, "body").generate(SEED, PER_CATEGORY);
    }

    @AfterAll
    static void close() throws IOException {
        index.close();
    }

    @Test
    void sameIndexAndSeedGiveTheSameBytes() throws IOException {
        GeneratedQueries again;
        try (OpenIndex reopened = OpenIndex.open(SampleIndex.store())) {
            again = QuerySetGenerator.create(reopened, "body").generate(SEED, PER_CATEGORY);
        }
        assertThat(QuerySetFile.render(again.set())).isEqualTo(QuerySetFile.render(generated.set()));
    }

    @Test
    void anotherSeedGivesOtherQueriesInEveryCategory() throws IOException {
        QuerySet other = QuerySetGenerator.create(index, "body").generate(SEED + 1, PER_CATEGORY).set();
        for (String category : QueryCategory.labels()) {
            assertThat(other.queries(category)).as(category).isNotEqualTo(generated.set().queries(category));
        }
    }

    @Test
    void everyCategoryIsPresentWithTheCountAskedFor() {
        QuerySet set = generated.set();
        assertThat(set.categoryNames()).containsExactlyElementsOf(QueryCategory.labels());
        for (String category : QueryCategory.labels()) {
            assertThat(set.queries(category)).as(category).hasSize(PER_CATEGORY).doesNotHaveDuplicates();
        }
        assertThat(generated.results()).allSatisfy(result -> assertThat(result.queries()).hasSize(result.wanted()));
    }

    @Test
    void everyQueryParsesAsTheLeafParsesItAndMatchesSomething() throws IOException, BadQueryException {
        // A parser of our own, built from the manifest the way a leaf builds its own.
        IndexManifest manifest = new PartitionStore(index.context().store().dir()).readManifest();
        QueryParsing parsing = new QueryParsing(Analyzers.forConfig(manifest.config()), manifest.queryFields());
        IndexSearcher searcher = new IndexSearcher(index.reader());
        for (Map.Entry<String, List<String>> category : generated.set().categories().entrySet()) {
            for (String query : category.getValue()) {
                assertThat(searcher.count(parsing.parse(query))).as("%s: %s", category.getKey(), query).isPositive();
            }
        }
        assertThat(generated.results()).allSatisfy(result -> assertThat(result.withoutHits()).isZero());
    }

    @Test
    void queriesHaveTheShapeOfTheirCategory() {
        QuerySet set = generated.set();
        assertThat(set.queries("high_term")).allMatch(q -> q.matches("\\p{L}{3,}"));
        assertThat(set.queries("and_high_high")).allMatch(q -> q.matches("\\+\\p{L}{3,} \\+\\p{L}{3,}"));
        assertThat(set.queries("and_high_med")).allMatch(q -> q.matches("\\+\\p{L}{3,} \\+\\p{L}{3,}"));
        assertThat(set.queries("or_high_med")).allMatch(q -> q.matches("\\p{L}{3,} \\p{L}{3,}"));
        assertThat(set.queries("phrase")).allMatch(q -> q.matches("\"\\p{L}{3,} \\p{L}{3,}\""));
        assertThat(set.queries("prefix")).allMatch(q -> q.matches("\\p{L}{4}\\*"));
        assertThat(set.queries("large_or")).allSatisfy(q -> assertThat(q.split(" ").length)
                .isBetween(QuerySetGenerator.LARGE_OR_MIN_TERMS, QuerySetGenerator.LARGE_OR_MAX_TERMS));
    }

    @Test
    void termCategoriesComeFromOrderedDocFreqBands() throws IOException {
        Vocabulary vocabulary = QuerySetGenerator.create(index, "body").vocabulary();
        assertThat(vocabulary.high()).isNotEmpty();
        assertThat(vocabulary.medium()).isNotEmpty();
        assertThat(vocabulary.low()).isNotEmpty();
        assertThat(vocabulary.high().getLast().docFreq()).isGreaterThan(vocabulary.medium().getFirst().docFreq());
        assertThat(vocabulary.medium().getLast().docFreq()).isGreaterThan(vocabulary.low().getFirst().docFreq());

        int lowestHigh = minDocFreq(generated.set().queries("high_term"));
        int highestMedium = maxDocFreq(generated.set().queries("medium_term"));
        int lowestMedium = minDocFreq(generated.set().queries("medium_term"));
        int highestLow = maxDocFreq(generated.set().queries("low_term"));
        assertThat(lowestHigh).isGreaterThanOrEqualTo(vocabulary.highMin()).isGreaterThan(highestMedium);
        assertThat(lowestMedium).isGreaterThanOrEqualTo(vocabulary.mediumMin()).isGreaterThan(highestLow);
        assertThat(minDocFreq(generated.set().queries("low_term"))).isGreaterThanOrEqualTo(vocabulary.lowMin());
    }

    @Test
    void phrasesAreAdjacentContentWordsNotFunctionWordPairs() throws IOException {
        Vocabulary vocabulary = QuerySetGenerator.create(index, "body").vocabulary();
        for (String phrase : generated.set().queries("phrase")) {
            String[] words = phrase.substring(1, phrase.length() - 1).split(" ");
            assertThat(Set.of(words)).as(phrase).noneMatch(vocabulary::isHigh);
        }
    }

    @Test
    void headerNamesIndexSeedAndCountsButNoTime() {
        String header = String.join("\n", generated.set().comments());
        assertThat(header).contains("index: europarl, 2,000 docs in 4 partitions; terms from field body")
                .contains("seed: 42; up to 40 queries per category")
                .contains("high_term 40")
                .doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}|\\d{2}:\\d{2}");
    }

    private static int minDocFreq(List<String> terms) throws IOException {
        int min = Integer.MAX_VALUE;
        for (String term : terms) {
            min = Math.min(min, index.reader().docFreq(new Term("body", term)));
        }
        return min;
    }

    private static int maxDocFreq(List<String> terms) throws IOException {
        int max = 0;
        for (String term : terms) {
            max = Math.max(max, index.reader().docFreq(new Term("body", term)));
        }
        return max;
    }
}
