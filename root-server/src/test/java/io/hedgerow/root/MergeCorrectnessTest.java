package io.hedgerow.root;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.TotalHits;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's answer (merged over leaves, sub-requests over the network) is the answer of
 * searching each partition's index directly and merging: same ids, scores and order, and a total
 * equal to a count over all partitions at once.
 */
class MergeCorrectnessTest {
    /** As many as the other tests' Europarl index (TestData.europarl(16)), so that one build serves them all. */
    private static final int PARTITIONS = 16;

    private static EmbeddedCluster cluster;
    private static PartitionStore store;
    private static IndexContext index;
    private static List<IndexSearcher> partitionSearchers;
    private static IndexSearcher allPartitions;
    private static List<DirectoryReader> readers;

    @BeforeAll
    static void startCluster(@TempDir Path data) throws Exception {
        store = TestData.europarl(PARTITIONS);
        cluster = EmbeddedCluster.builder(data).existingIndex(store.dir()).leaves(3).replicas(2).start();
        IndexManifest manifest = store.readManifest();
        index = IndexContext.of(store, manifest);
        readers = new ArrayList<>();
        partitionSearchers = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            DirectoryReader reader = DirectoryReader.open(new MMapDirectory(store.partitionDir(p)));
            readers.add(reader);
            partitionSearchers.add(new IndexSearcher(reader));
        }
        allPartitions = new IndexSearcher(new MultiReader(readers.toArray(IndexReader[]::new), false));
    }

    @AfterAll
    static void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        for (DirectoryReader reader : readers) {
            reader.close();
        }
    }

    @Test
    void clusterHitsEqualAReferenceMergeOfEveryPartition() throws Exception {
        long seed = new Random().nextLong();
        System.out.println("MergeCorrectnessTest seed: " + seed);
        Random random = new Random(seed);
        List<String> queries = queries(random, 300);
        int compared = 0;
        for (int i = 0; i < queries.size(); i++) {
            String queryText = queries.get(i);
            int k = 1 + random.nextInt(i % 10 == 0 ? 200 : 20);
            boolean fetch = i % 3 == 0;
            // Every partition, however late on a loaded machine: this compares merges, not the tail's cutoff.
            SearchResult result = cluster.client().search(SearchRequest.builder(queryText).k(k).exactTotalHits()
                    .minCoverage(1.0).timeoutMillis(30_000).snippets(fetch).storedFields(fetch).build()).get();
            Query query = index.parsing().parse(queryText);

            String context = "seed " + seed + ", query #" + i + " [" + queryText + "], k=" + k;
            assertThat(result.tainted()).as(context).isFalse();
            assertThat(result.totalHits()).as(context)
                    .isEqualTo(new TotalHits(allPartitions.count(query), TotalHits.Relation.EQUAL_TO));
            List<String> expected = referenceTopK(query, k);
            List<String> actual = result.hits().stream()
                    .map(h -> h.partition() + "/" + h.id() + "/" + h.score()).toList();
            assertThat(actual).as(context).containsExactlyElementsOf(expected);
            if (fetch) {
                for (Hit hit : result.hits()) {
                    assertThat(hit.fields()).as(context).containsKeys("title", "date").doesNotContainKey("body");
                    assertThat(hit.snippet()).as(context).isNotEmpty();
                }
            }
            compared += actual.size();
        }
        assertThat(compared).as("hits compared over all queries").isGreaterThan(1000);
    }

    /** Top k of every partition searched directly, merged by score, then partition, then doc. */
    private static List<String> referenceTopK(Query query, int k) throws IOException {
        record Ref(float score, int partition, int doc, String id) {
        }
        List<Ref> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            IndexSearcher searcher = partitionSearchers.get(p);
            TopDocs top = searcher.search(query, new TopScoreDocCollectorManager(k, null, Integer.MAX_VALUE));
            for (ScoreDoc hit : top.scoreDocs) {
                all.add(new Ref(hit.score, p, hit.doc, searcher.storedFields().document(hit.doc).get(IndexConfig.ID_FIELD)));
            }
        }
        all.sort(Comparator.comparingDouble((Ref r) -> -r.score()).thenComparingInt(Ref::partition)
                .thenComparingInt(Ref::doc));
        return all.stream().limit(k).map(r -> r.partition() + "/" + r.id() + "/" + r.score()).toList();
    }

    /**
     * Queries drawn from the corpus itself: single terms of every frequency, two-term ORs and
     * ANDs, phrases cut from real bodies, and fielded title terms.
     */
    private static List<String> queries(Random random, int count) throws IOException {
        List<String> terms = new ArrayList<>();
        List<String> commonTerms = new ArrayList<>();
        TermsEnum termsEnum = MultiTerms.getTerms(allPartitions.getIndexReader(), "body").iterator();
        BytesRef term;
        while ((term = termsEnum.next()) != null) {
            String text = term.utf8ToString();
            if (!text.chars().allMatch(Character::isLetter)) {
                continue;
            }
            if (random.nextInt(50) == 0) {
                terms.add(text);
            }
            // Common enough that an AND of two of them still matches documents.
            if (termsEnum.docFreq() > 1000) {
                commonTerms.add(text);
            }
        }
        assertThat(commonTerms).as("terms in over 1,000 documents").hasSizeGreaterThan(20);
        List<String> titleTerms = new ArrayList<>();
        TermsEnum titles = MultiTerms.getTerms(allPartitions.getIndexReader(), "title").iterator();
        while ((term = titles.next()) != null) {
            String text = term.utf8ToString();
            if (text.chars().allMatch(Character::isLetter) && allPartitions.count(
                    new org.apache.lucene.search.TermQuery(new Term("title", term))) > 3) {
                titleTerms.add(text);
            }
        }
        List<String> queries = new ArrayList<>();
        while (queries.size() < count) {
            String a = terms.get(random.nextInt(terms.size()));
            String b = terms.get(random.nextInt(terms.size()));
            switch (queries.size() % 5) {
                case 0 -> queries.add(a);
                case 1 -> queries.add(a + " " + b);
                case 2 -> queries.add("+" + commonTerms.get(random.nextInt(commonTerms.size()))
                        + " +" + commonTerms.get(random.nextInt(commonTerms.size())));
                case 3 -> queries.add(phrase(random));
                default -> queries.add("title:" + titleTerms.get(random.nextInt(titleTerms.size())) + " " + a);
            }
        }
        return queries;
    }

    /** Two or three consecutive tokens of a random document's body, quoted. */
    private static String phrase(Random random) throws IOException {
        IndexReader reader = allPartitions.getIndexReader();
        while (true) {
            int doc = random.nextInt(reader.maxDoc());
            String body = allPartitions.storedFields().document(doc).get("body");
            List<String> tokens = new ArrayList<>();
            try (TokenStream stream = index.analyzer().tokenStream("body", body)) {
                CharTermAttribute termAttribute = stream.addAttribute(CharTermAttribute.class);
                stream.reset();
                while (stream.incrementToken() && tokens.size() < 200) {
                    tokens.add(termAttribute.toString());
                }
                stream.end();
            }
            if (tokens.size() < 5) {
                continue;
            }
            int start = random.nextInt(tokens.size() - 3);
            int length = 2 + random.nextInt(2);
            List<String> words = tokens.subList(start, start + length);
            if (words.stream().allMatch(w -> w.chars().allMatch(Character::isLetter))) {
                return "\"" + String.join(" ", words) + "\"";
            }
        }
    }
}
