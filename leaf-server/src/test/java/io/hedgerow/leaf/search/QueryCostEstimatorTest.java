package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cost estimate and the expansion budget, on a real index whose statistics are known: 100
 * documents; {@code common} in all of them, {@code half} in the even ones, {@code rare} in one;
 * {@code gammaNNN} (1,000 distinct terms) one per document, ten documents each; two segments.
 */
class QueryCostEstimatorTest {
    private static final ByteBuffersDirectory DIRECTORY = new ByteBuffersDirectory();
    private static DirectoryReader reader;

    @BeforeAll
    static void index() throws IOException {
        try (IndexWriter writer = new IndexWriter(DIRECTORY, new IndexWriterConfig(new StandardAnalyzer()))) {
            for (int i = 0; i < 100; i++) {
                StringBuilder body = new StringBuilder("common");
                if (i % 2 == 0) {
                    body.append(" half");
                }
                if (i == 7) {
                    body.append(" rare");
                }
                for (int g = 0; g < 10; g++) {
                    body.append(String.format(" gamma%03d", i * 10 + g));
                }
                Document doc = new Document();
                doc.add(new TextField("body", body.toString(), Field.Store.NO));
                writer.addDocument(doc);
                if (i == 49) {
                    writer.commit(); // a second segment: statistics are summed across them
                }
            }
        }
        reader = DirectoryReader.open(DIRECTORY);
    }

    @AfterAll
    static void close() throws IOException {
        reader.close();
        DIRECTORY.close();
    }

    @Test
    void sumsTheDocumentFrequenciesOfTheQuerysTerms() throws Exception {
        assertThat(estimate("rare").estimate()).isEqualTo(1);
        assertThat(estimate("common").estimate()).isEqualTo(100);
        assertThat(estimate("common half rare").estimate()).isEqualTo(151);
        assertThat(estimate("+common +half").estimate()).as("an upper bound: a conjunction may read less").isEqualTo(150);
        assertThat(estimate("absent").estimate()).isZero();
        assertThat(estimate("common").expandedTerms()).isZero();
    }

    @Test
    void weighsPhraseTermsForTheirPositionsAndLooserPhrasesMore() throws Exception {
        long exact = estimate("\"common half\"").estimate();
        long loose = estimate("\"common half\"~8").estimate();

        assertThat(exact).isEqualTo(150L * QueryCostEstimator.phraseWeight(0));
        assertThat(loose).isEqualTo(150L * QueryCostEstimator.phraseWeight(8));
        assertThat(loose).isGreaterThan(exact).isGreaterThan(150);
    }

    @Test
    void countsExpandedTermsTheirPostingsAndTheTermsVisited() throws Exception {
        QueryCost cost = estimate("gamma0*");

        assertThat(cost.expandedTerms()).isEqualTo(100); // gamma000..gamma099
        assertThat(cost.postings()).isEqualTo(100);      // one document each
        assertThat(cost.termsVisited()).isBetween(100L, 110L);
        assertThat(cost.estimate()).isEqualTo(cost.postings() + cost.termsVisited());
    }

    @Test
    void refusesAQueryWhosePartsTogetherMatchMoreThanTheTotal() {
        QueryLimits limits = QueryLimits.defaults().withMaxExpansions(150).withMaxExpansionsTotal(250);
        assertThatCode(() -> estimate("gamma0* gamma1*", limits)).doesNotThrowAnyException();

        // Three parts of 100 terms each: every one within --max-expansions, together past the total.
        assertThatThrownBy(() -> estimate("gamma0* gamma1* gamma2*", limits))
                .isInstanceOf(BadQueryException.class)
                .hasMessage("the query's wildcard, prefix, fuzzy, regexp and range terms match more than 250 terms"
                        + " together in partition 3 (expected: <= 250, the leaf's --max-expansions-total)");
    }

    @Test
    void refusesExpansionsWithMorePostingsThanTheBudget() {
        QueryLimits limits = QueryLimits.defaults().withMaxExpansionPostings(99);

        assertThatThrownBy(() -> estimate("gamma0*", limits))
                .isInstanceOf(BadQueryException.class)
                .hasMessage("the terms the query's wildcard, prefix, fuzzy, regexp and range parts match have more"
                        + " than 99 postings in partition 3 (expected: <= 99, the leaf's --max-expansion-postings)");
    }

    @Test
    void refusesAPatternThatMatchesNothingButVisitsTooManyTerms() {
        // Every gamma term starts with 'g' and none ends in 'zzzz': nothing matches, all are read.
        QueryLimits limits = QueryLimits.defaults().withMaxTermsVisited(500);

        assertThatThrownBy(() -> estimate("/g.*zzzz/", limits))
                .isInstanceOf(BadQueryException.class)
                .hasMessage("finding the terms of 'body:/g.*zzzz/' visits more than 500 terms in partition 3"
                        + " (expected: <= 500, the leaf's --max-terms-visited)");
        // The same pattern over a narrower range visits little and is accepted.
        assertThatCode(() -> estimate("/gamma00.*zzzz/", limits)).doesNotThrowAnyException();
    }

    @Test
    void refusesAPhraseWhoseTermsTimesSlopArePastTheLimitWhenParsed() {
        QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("body"),
                QueryLimits.defaults().withMaxPhraseCost(20));
        assertThatCode(() -> parsing.parse("\"common half\"~9")).doesNotThrowAnyException(); // 2 x 10

        assertThatThrownBy(() -> parsing.parse("\"common half\"~10"))
                .isInstanceOf(BadQueryException.class)
                .hasMessage("the phrase 'body:\"common half\"~10' costs 22 (its terms times its slop plus one;"
                        + " expected: <= 20, the leaf's --max-phrase-cost)");
        assertThatThrownBy(() -> parsing.parse("\"common half rare gamma000 gamma001 gamma002 gamma003\"~2"))
                .hasMessageContaining("costs 21");
    }

    private static QueryCost estimate(String query) throws Exception {
        return estimate(query, QueryLimits.defaults());
    }

    private static QueryCost estimate(String query, QueryLimits limits) throws Exception {
        QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("body"), limits);
        return QueryCostEstimator.estimate(parsing.parse(query), reader, limits, 3);
    }
}
