package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SentenceEndBreakIteratorTest {
    private static final String TEXT = "Mr President, thank you. Is it done? Yes! Wait… no.";

    @Test
    void breaksAfterSentenceEndsFollowedBySpace() {
        SentenceEndBreakIterator iterator = new SentenceEndBreakIterator();
        iterator.setText(TEXT);
        assertThat(forward(iterator)).containsExactly(0, 24, 36, 41, 47, TEXT.length());
        assertThat(backward(iterator)).containsExactly(TEXT.length(), 47, 41, 36, 24, 0);
    }

    @Test
    void followingAndPrecedingSkipToTheNeighbouringBoundaries() {
        SentenceEndBreakIterator iterator = new SentenceEndBreakIterator();
        iterator.setText(TEXT);
        assertThat(iterator.following(0)).isEqualTo(24);
        assertThat(iterator.following(24)).isEqualTo(36);
        assertThat(iterator.current()).isEqualTo(36);
        assertThat(iterator.preceding(36)).isEqualTo(24);
        assertThat(iterator.preceding(30)).isEqualTo(24);
        assertThat(iterator.preceding(0)).isEqualTo(BreakIterator.DONE);
        assertThat(iterator.following(TEXT.length())).isEqualTo(BreakIterator.DONE);
        assertThat(iterator.isBoundary(24)).isTrue();
        assertThat(iterator.isBoundary(23)).isFalse();
    }

    @Test
    void agreesWithABruteForceReadingOfRandomTexts() {
        long seed = 42;
        SplittableRandom random = new SplittableRandom(seed);
        char[] alphabet = {'a', 'b', ' ', '.', '!', '?', '\n', '…', '1'};
        SentenceEndBreakIterator iterator = new SentenceEndBreakIterator();
        for (int round = 0; round < 500; round++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(40);
            for (int i = 0; i < length; i++) {
                text.append(alphabet[random.nextInt(alphabet.length)]);
            }
            List<Integer> expected = new ArrayList<>(List.of(0));
            for (int i = 1; i < length; i++) {
                char before = text.charAt(i - 1);
                if ((before == '.' || before == '!' || before == '?' || before == '…')
                        && Character.isWhitespace(text.charAt(i))) {
                    expected.add(i);
                }
            }
            if (length > 0) {
                expected.add(length);
            }
            iterator.setText(text.toString());
            assertThat(forward(iterator)).as("'%s' (seed %d)", text, seed).isEqualTo(expected);
            for (int offset = 0; offset < length; offset++) {
                int at = offset;
                int next = expected.stream().filter(b -> b > at).findFirst().orElseThrow();
                assertThat(iterator.following(offset)).as("following(%d) in '%s'", offset, text).isEqualTo(next);
            }
        }
    }

    private static List<Integer> forward(BreakIterator iterator) {
        List<Integer> boundaries = new ArrayList<>();
        for (int b = iterator.first(); b != BreakIterator.DONE; b = iterator.next()) {
            boundaries.add(b);
        }
        return boundaries;
    }

    private static List<Integer> backward(BreakIterator iterator) {
        List<Integer> boundaries = new ArrayList<>();
        for (int b = iterator.last(); b != BreakIterator.DONE; b = iterator.previous()) {
            boundaries.add(b);
        }
        return boundaries;
    }
}
