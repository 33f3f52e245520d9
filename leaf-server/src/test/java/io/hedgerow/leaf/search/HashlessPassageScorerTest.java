package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageScorer;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scorer must pick the passages Lucene's would: the same score, to the bit, for any passage. */
@Timeout(30)
class HashlessPassageScorerTest {
    private static final String[] WORDS = {"human", "rights", "parliament", "vote", "fisheries", "policy", "a", "b"};

    @Test
    void scoresEveryPassageExactlyAsLucenesScorerDoes() {
        PassageScorer lucene = new PassageScorer();
        PassageScorer hashless = new HashlessPassageScorer();
        Random random = new Random(20261128);
        for (int round = 0; round < 20_000; round++) {
            Passage passage = new Passage();
            int start = random.nextInt(5_000);
            int length = 2 + random.nextInt(400);
            passage.setStartOffset(start);
            passage.setEndOffset(start + length);
            int matches = random.nextInt(40); // past the scan's limit too
            int distinct = 1 + random.nextInt(WORDS.length);
            for (int m = 0; m < matches; m++) {
                String word = WORDS[random.nextInt(distinct)];
                // A term's frequency in the document is a property of the term: the same for each match.
                int at = start + m % length; // matches lie inside the passage
                passage.addMatch(at, at + 1, new BytesRef(word), 1 + Math.floorMod(word.hashCode(), 7));
            }
            int contentLength = start + length + random.nextInt(10_000);

            assertThat(Float.floatToIntBits(hashless.score(passage, contentLength)))
                    .as("round %d: %d matches", round, matches)
                    .isEqualTo(Float.floatToIntBits(lucene.score(passage, contentLength)));
        }
    }

    @Test
    void aPassageWithoutMatchesScoresZero() {
        Passage passage = new Passage();
        passage.setStartOffset(10);
        passage.setEndOffset(50);
        assertThat(new HashlessPassageScorer().score(passage, 100)).isZero();
    }
}
