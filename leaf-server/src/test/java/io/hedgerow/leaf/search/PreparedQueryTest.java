package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IOBooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One pass over a query's terms serves both its cost estimate and its set-up: the prepared query's
 * term queries carry the term states the estimate looked up, so running it looks no term up in the
 * term dictionary again. Counted on a reader that counts every term lookup; 100 documents in two
 * segments, {@code common} in all, {@code half} in the even ones.
 */
@Timeout(30)
class PreparedQueryTest {
    private static final ByteBuffersDirectory DIRECTORY = new ByteBuffersDirectory();
    private static final int SEGMENTS = 2;
    private static DirectoryReader plain;

    private final AtomicLong lookups = new AtomicLong();
    private final QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("body"), QueryLimits.defaults());
    private IndexSearcher searcher;

    @BeforeAll
    static void index() throws IOException {
        try (IndexWriter writer = new IndexWriter(DIRECTORY, new IndexWriterConfig(new StandardAnalyzer()))) {
            for (int i = 0; i < 100; i++) {
                Document doc = new Document();
                doc.add(new TextField("body", i % 2 == 0 ? "common half" : "common", Field.Store.NO));
                writer.addDocument(doc);
                if (i == 49) {
                    writer.commit();
                }
            }
        }
        plain = DirectoryReader.open(DIRECTORY);
        assertThat(plain.leaves()).hasSize(SEGMENTS);
    }

    @AfterAll
    static void close() throws IOException {
        plain.close();
        DIRECTORY.close();
    }

    @BeforeEach
    void countingSearcher() throws IOException {
        searcher = new IndexSearcher(new CountingReader(plain, lookups));
        searcher.setQueryCache(null);
    }

    @Test
    void estimatingAndRunningAPreparedQueryLooksEachTermUpOncePerSegment() throws Exception {
        QueryCostEstimator.Prepared prepared = QueryCostEstimator.prepare(parsing.parse("common half"), searcher,
                QueryLimits.defaults(), 0);
        searcher.search(prepared.query(), 10);

        assertThat(prepared.cost().postings()).isEqualTo(100 + 50);
        assertThat(lookups.get()).as("2 terms x 2 segments, by the estimate only").isEqualTo(2 * SEGMENTS);
    }

    @Test
    void theParsedQueryRunAfterItsEstimateLooksItsTermsUpAgain() throws Exception {
        Query parsed = parsing.parse("common half");
        QueryCostEstimator.prepare(parsed, searcher, QueryLimits.defaults(), 0);
        searcher.search(parsed, 10);

        assertThat(lookups.get()).as("the estimate's lookups, then the set-up's").isEqualTo(2 * 2 * SEGMENTS);
    }

    @Test
    void aPreparedQueryFindsWhatTheParsedOneFinds() throws Exception {
        for (String text : List.of("common half", "+common -half", "common^3 half", "\"common half\" common")) {
            Query parsed = parsing.parse(text);
            Query prepared = QueryCostEstimator.prepare(parsed, searcher, QueryLimits.defaults(), 0).query();
            TopDocs expected = searcher.search(parsed, 100);
            TopDocs actual = searcher.search(prepared, 100);
            assertThat(actual.totalHits).as(text).isEqualTo(expected.totalHits);
            assertThat(actual.scoreDocs).as(text).usingRecursiveFieldByFieldElementComparator()
                    .containsExactly(expected.scoreDocs);
        }
    }

    @Test
    void termQueriesInsideBooleansAndBoostsCarryTheirStates() throws Exception {
        Query prepared = QueryCostEstimator.prepare(parsing.parse("common^3 half"), searcher, QueryLimits.defaults(), 0)
                .query();

        assertThat(prepared).isInstanceOf(BooleanQuery.class);
        for (BooleanClause clause : ((BooleanQuery) prepared).clauses()) {
            Query inner = clause.query() instanceof org.apache.lucene.search.BoostQuery boost ? boost.getQuery()
                    : clause.query();
            assertThat(inner).isInstanceOf(TermQuery.class);
            assertThat(((TermQuery) inner).getTermStates()).as(inner.toString()).isNotNull();
            assertThat(((TermQuery) inner).getTermStates().wasBuiltFor(searcher.getTopReaderContext())).isTrue();
        }
    }

    /** A reader that counts each lookup of a term in a segment's term dictionary. */
    private static final class CountingReader extends FilterDirectoryReader {
        private final AtomicLong lookups;

        CountingReader(DirectoryReader in, AtomicLong lookups) throws IOException {
            super(in, new SubReaderWrapper() {
                @Override
                public LeafReader wrap(LeafReader reader) {
                    return new CountingLeaf(reader, lookups);
                }
            });
            this.lookups = lookups;
        }

        @Override
        protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
            return new CountingReader(in, lookups);
        }

        @Override
        public CacheHelper getReaderCacheHelper() {
            return null;
        }
    }

    private static final class CountingLeaf extends FilterLeafReader {
        private final AtomicLong lookups;

        CountingLeaf(LeafReader in, AtomicLong lookups) {
            super(in);
            this.lookups = lookups;
        }

        @Override
        public Terms terms(String field) throws IOException {
            Terms terms = super.terms(field);
            return terms == null ? null : new FilterTerms(terms) {
                @Override
                public TermsEnum iterator() throws IOException {
                    return new FilterTermsEnum(in.iterator()) {
                        @Override
                        public boolean seekExact(BytesRef text) throws IOException {
                            lookups.incrementAndGet();
                            return in.seekExact(text);
                        }

                        @Override
                        public IOBooleanSupplier prepareSeekExact(BytesRef text) throws IOException {
                            lookups.incrementAndGet();
                            return in.prepareSeekExact(text);
                        }
                    };
                }
            };
        }

        @Override
        public CacheHelper getCoreCacheHelper() {
            return in.getCoreCacheHelper();
        }

        @Override
        public CacheHelper getReaderCacheHelper() {
            return in.getReaderCacheHelper();
        }
    }
}
