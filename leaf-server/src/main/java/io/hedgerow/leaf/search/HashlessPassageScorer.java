package io.hedgerow.leaf.search;

import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageScorer;
import org.apache.lucene.util.BytesRef;

/**
 * Lucene's {@link PassageScorer}, the same scores, without its hash per passage. Lucene's counts a
 * passage's distinct terms in a new {@code BytesRefHash}, whose first block alone is 32 KB: every
 * sentence with a match allocated one, which made scoring passages about a fifth of a snippet's
 * cost. A passage holds a handful of matches, so a linear scan finds the distinct terms; it visits
 * them in the order of their first match, as the hash numbers them, so the sum is the same, in the
 * same order. A passage with many matches (a whole field highlighted) is left to Lucene's.
 */
final class HashlessPassageScorer extends PassageScorer {
    /** Up to this many matches the scan's quadratic comparisons cost less than the hash. */
    private static final int MAX_SCANNED_MATCHES = 32;

    @Override
    public float score(Passage passage, int contentLength) {
        int matches = passage.getNumMatches();
        if (matches > MAX_SCANNED_MATCHES) {
            return super.score(passage, contentLength);
        }
        BytesRef[] terms = passage.getMatchTerms();
        int[] freqsInDoc = passage.getMatchTermFreqsInDoc();
        int[] firstMatch = new int[matches]; // per distinct term, its first match
        int[] freqInPassage = new int[matches];
        int distinct = 0;
        next:
        for (int i = 0; i < matches; i++) {
            for (int t = 0; t < distinct; t++) {
                if (terms[firstMatch[t]].bytesEquals(terms[i])) {
                    freqInPassage[t]++;
                    continue next;
                }
            }
            firstMatch[distinct] = i;
            freqInPassage[distinct++] = 1;
        }
        double score = 0;
        for (int t = 0; t < distinct; t++) {
            score += tf(freqInPassage[t], passage.getLength()) * weight(contentLength, freqsInDoc[firstMatch[t]]);
        }
        score *= norm(passage.getStartOffset());
        return (float) score;
    }
}
