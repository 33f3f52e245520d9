package io.hedgerow.loadgen.queries;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * Two-word phrases that really occur: adjacent words of the stored text of a sample of documents,
 * analyzed as the index analyzed them. luceneutil finds its phrases in a shingle index; a Hedgerow
 * index has none, but it stores its text fields for snippets, which serves as well.
 *
 * <p>A phrase is kept when both words are plain terms and neither is in the high band: such pairs
 * as "de la" or "of the" are mostly function words and would only repeat the OR and AND categories'
 * cost, while "human rights" or "member states" are what people search for. Phrases found in at
 * least two sampled documents come first, so that phrases are not one-off word pairs.
 */
final class PhraseCandidates {
    /** A phrase and the number of sampled documents that hold it. */
    record Phrase(String first, String second, int sampledDocs) {
        String query() {
            return "\"" + first + " " + second + "\"";
        }
    }

    private PhraseCandidates() {
    }

    /**
     * Phrases from {@code poolSize} documents picked by {@code random}, those seen in two or more
     * documents first, each group sorted by text; empty when no document stores {@code field}.
     */
    static List<Phrase> collect(IndexReader reader, String field, Analyzer analyzer, Vocabulary vocabulary,
            Random random, int poolSize) throws IOException {
        FixedBitSet pool = samplePool(reader, random, poolSize);
        Map<String, Integer> docCounts = new HashMap<>();
        StoredFields storedFields = reader.storedFields();
        Set<String> inThisDoc = new HashSet<>();
        for (int doc = pool.nextSetBit(0); doc != DocIdSetIterator.NO_MORE_DOCS; doc = nextOrEnd(pool, doc)) {
            String[] values = storedFields.document(doc, Set.of(field)).getValues(field);
            inThisDoc.clear();
            for (String value : values) {
                addPairs(analyzer, field, value, vocabulary, inThisDoc);
            }
            for (String pair : inThisDoc) {
                docCounts.merge(pair, 1, Integer::sum);
            }
        }
        List<Phrase> repeated = new ArrayList<>();
        List<Phrase> once = new ArrayList<>();
        docCounts.forEach((pair, count) -> {
            int space = pair.indexOf(' ');
            Phrase phrase = new Phrase(pair.substring(0, space), pair.substring(space + 1), count);
            (count >= 2 ? repeated : once).add(phrase);
        });
        // HashMap order is not part of any contract: sort, so the same index gives the same list.
        Comparator<Phrase> byText = Comparator.comparing(Phrase::first).thenComparing(Phrase::second);
        repeated.sort(byText);
        once.sort(byText);
        repeated.addAll(once);
        return repeated;
    }

    private static int nextOrEnd(FixedBitSet bits, int doc) {
        return doc + 1 >= bits.length() ? DocIdSetIterator.NO_MORE_DOCS : bits.nextSetBit(doc + 1);
    }

    /** Up to {@code poolSize} live documents, chosen by {@code random}; all of them in a small index. */
    private static FixedBitSet samplePool(IndexReader reader, Random random, int poolSize) {
        int maxDoc = reader.maxDoc();
        Bits live = MultiBits.getLiveDocs(reader);
        FixedBitSet pool = new FixedBitSet(Math.max(1, maxDoc));
        if (maxDoc == 0) {
            return pool;
        }
        if ((long) poolSize * 2 >= reader.numDocs()) {
            for (int doc = 0; doc < maxDoc; doc++) {
                if (live == null || live.get(doc)) {
                    pool.set(doc);
                }
            }
            return pool;
        }
        int chosen = 0;
        while (chosen < poolSize) {
            int doc = random.nextInt(maxDoc);
            if ((live == null || live.get(doc)) && !pool.getAndSet(doc)) {
                chosen++;
            }
        }
        return pool;
    }

    /** Adds each kept adjacent pair of {@code text} to {@code pairs}, as "first second". */
    private static void addPairs(Analyzer analyzer, String field, String text, Vocabulary vocabulary, Set<String> pairs)
            throws IOException {
        try (TokenStream stream = analyzer.tokenStream(field, text)) {
            CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute increment = stream.addAttribute(PositionIncrementAttribute.class);
            stream.reset();
            String previous = null;
            while (stream.incrementToken()) {
                String word = term.toString();
                boolean usable = Vocabulary.isPlain(word) && !vocabulary.isHigh(word);
                if (usable && previous != null && increment.getPositionIncrement() == 1) {
                    pairs.add(previous + " " + word);
                }
                previous = usable ? word : null;
            }
            stream.end();
        }
    }
}
