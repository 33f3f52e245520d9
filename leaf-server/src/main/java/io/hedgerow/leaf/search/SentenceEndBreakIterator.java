package io.hedgerow.leaf.search;

import java.text.BreakIterator;
import java.text.CharacterIterator;
import java.text.StringCharacterIterator;

/**
 * Sentence boundaries for snippets, found cheaply: a boundary falls after {@code .}, {@code !},
 * {@code ?} or {@code …} followed by whitespace, and at both ends of the text.
 *
 * <p>Why not the JDK's sentence instance: its rule engine walks the text a code point at a time
 * through a {@link CharacterIterator}, and with {@code LengthGoalBreakIterator} asking for
 * boundaries around every passage it was most of the cost of a snippet, and a visible part of a
 * leaf's CPU. Snippets only need plausible sentence edges; an abbreviation that ends a "sentence"
 * early costs nothing worse than a shorter passage, which the length goal then extends.
 *
 * <p>Not thread-safe, like every {@link BreakIterator}.
 */
final class SentenceEndBreakIterator extends BreakIterator {
    private String text = "";
    private int current;

    @Override
    public void setText(String newText) {
        text = newText;
        current = 0;
    }

    @Override
    public void setText(CharacterIterator newText) {
        StringBuilder copy = new StringBuilder(newText.getEndIndex() - newText.getBeginIndex());
        for (char c = newText.first(); c != CharacterIterator.DONE; c = newText.next()) {
            copy.append(c);
        }
        setText(copy.toString());
    }

    @Override
    public CharacterIterator getText() {
        return new StringCharacterIterator(text, current);
    }

    @Override
    public int first() {
        return current = 0;
    }

    @Override
    public int last() {
        return current = text.length();
    }

    @Override
    public int current() {
        return current;
    }

    @Override
    public int next() {
        return current == text.length() ? DONE : (current = boundaryAfter(current));
    }

    @Override
    public int next(int n) {
        int result = current;
        for (int i = 0; i < n && result != DONE; i++) {
            result = next();
        }
        for (int i = 0; i > n && result != DONE; i--) {
            result = previous();
        }
        return result;
    }

    @Override
    public int previous() {
        return current == 0 ? DONE : (current = boundaryBefore(current));
    }

    @Override
    public int following(int offset) {
        checkOffset(offset);
        if (offset == text.length()) {
            current = offset;
            return DONE;
        }
        return current = boundaryAfter(offset);
    }

    @Override
    public int preceding(int offset) {
        checkOffset(offset);
        if (offset == 0) {
            current = 0;
            return DONE;
        }
        return current = boundaryBefore(offset);
    }

    /** The first boundary after {@code offset} (the text's end if none is sooner). */
    private int boundaryAfter(int offset) {
        for (int i = Math.max(offset + 1, 1); i < text.length(); i++) {
            if (isBoundary(i)) {
                return i;
            }
        }
        return text.length();
    }

    /** The last boundary before {@code offset} (the start if none is later). */
    private int boundaryBefore(int offset) {
        for (int i = Math.min(offset - 1, text.length() - 1); i > 0; i--) {
            if (isBoundary(i)) {
                return i;
            }
        }
        return 0;
    }

    @Override
    public boolean isBoundary(int offset) {
        checkOffset(offset);
        if (offset == 0 || offset == text.length()) {
            return true;
        }
        char before = text.charAt(offset - 1);
        return (before == '.' || before == '!' || before == '?' || before == '…')
                && Character.isWhitespace(text.charAt(offset));
    }

    private void checkOffset(int offset) {
        if (offset < 0 || offset > text.length()) {
            throw new IllegalArgumentException("offset: " + offset + " (expected: 0.." + text.length() + ")");
        }
    }
}
