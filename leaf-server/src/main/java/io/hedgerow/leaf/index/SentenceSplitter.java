package io.hedgerow.leaf.index;

import java.util.Arrays;

/**
 * Cuts Europarl text into sentences, once, when {@link EuroparlRecombiner} loads the corpus; a
 * character loop rather than a regular expression or a {@code BreakIterator}, since it runs over
 * 21 MB of text on every scaled build.
 *
 * <p>A sentence ends where a {@code .}, {@code !}, {@code ?} or {@code ;} (the Greek question
 * mark) is followed by white space and then by anything but a lower-case letter, and wherever
 * there are two or more white-space characters in a row (the corpus marks paragraphs that way).
 * So "1. stoletje" and "3. und 4. juli" stay whole, as does "M.&nbsp;Wynn" (a no-break space is not
 * white space here), while "Mr. Smith" is cut in two: both halves are still real text, which is
 * all recombination needs. Each sentence is trimmed of white space;
 * blank ones are dropped. Europarl bodies are excerpts, so the first and last sentences of a body
 * are often fragments; they are kept, as they are part of what real bodies look like.
 */
final class SentenceSplitter {

    private SentenceSplitter() {
    }

    /**
     * The sentences of {@code text} as {@code [start0, end0, start1, end1, ...]}: sentence
     * {@code i} is {@code text.substring(bounds[2i], bounds[2i + 1])}, never empty, never starting or
     * ending with white space.
     */
    static int[] sentences(CharSequence text) {
        int[] bounds = new int[16];
        int count = 0;
        int length = text.length();
        int start = skipSpace(text, 0);
        int i = start;
        while (i < length) {
            if (!isSpace(text.charAt(i))) {
                i++;
                continue;
            }
            int next = skipSpace(text, i);
            boolean paragraph = next - i >= 2;
            boolean sentenceEnd = i > 0 && isTerminator(text.charAt(i - 1))
                    && (next == length || !Character.isLowerCase(Character.codePointAt(text, next)));
            if ((paragraph || sentenceEnd || next == length) && i > start) {
                if (count + 2 > bounds.length) {
                    bounds = Arrays.copyOf(bounds, bounds.length * 2);
                }
                bounds[count++] = start;
                bounds[count++] = i;
                start = next;
            }
            i = next;
        }
        if (i > start) {
            if (count + 2 > bounds.length) {
                bounds = Arrays.copyOf(bounds, count + 2);
            }
            bounds[count++] = start;
            bounds[count++] = i;
        }
        return Arrays.copyOf(bounds, count);
    }

    private static int skipSpace(CharSequence text, int from) {
        int i = from;
        while (i < text.length() && isSpace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isSpace(char c) {
        // Not the no-break space: French puts one in "M.\u00a0Wynn" precisely so that it is not cut.
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static boolean isTerminator(char c) {
        return c == '.' || c == '!' || c == '?' || c == ';' || c == '\u037e';
    }
}
