package io.hedgerow.leaf.search;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The expansion limit, counted on a real index whose terms are known: alpha0..alpha9 (in two
 * segments, so counting goes across them) and beta.
 */
class QueryCostGuardTest {
    private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
    private DirectoryReader reader;

    @BeforeEach
    void index() throws IOException {
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(new StandardAnalyzer()))) {
            for (int i = 0; i < 10; i++) {
                Document doc = new Document();
                doc.add(new TextField("body", "alpha" + i + " beta", Field.Store.NO));
                writer.addDocument(doc);
                if (i == 4) {
                    writer.commit(); // a second segment
                }
            }
        }
        reader = DirectoryReader.open(directory);
    }

    @AfterEach
    void close() throws IOException {
        reader.close();
        directory.close();
    }

    @Test
    void acceptsPatternsThatMatchUpToTheLimit() {
        for (String query : List.of("alpha*", "alph?5 OR alpha*", "/alpha[0-9]/", "alpha1~1", "beta", "[alpha0 TO alpha9]")) {
            assertThatCode(() -> check(query, 10)).as(query).doesNotThrowAnyException();
        }
    }

    @Test
    void refusesEachKindOfPatternThatMatchesMoreNamingTheLimit() {
        for (String query : List.of("alpha*", "beta OR alpha?", "/alpha[0-9]/", "alpha1~1", "[alpha0 TO alpha9]")) {
            assertThatThrownBy(() -> check(query, 9), query)
                    .isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("matches more than 9 terms in partition 7")
                    .hasMessageEndingWith("(expected: <= 9, the leaf's --max-expansions)");
        }
    }

    private void check(String queryText, int maxExpansions) throws Exception {
        QueryLimits limits = QueryLimits.defaults().withMaxExpansions(maxExpansions);
        QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("body"), limits);
        QueryCostEstimator.estimate(parsing.parse(queryText), reader, limits, 7);
    }
}
