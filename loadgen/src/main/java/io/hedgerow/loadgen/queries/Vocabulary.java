package io.hedgerow.loadgen.queries;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BytesRef;

/**
 * The terms of one field in three document-frequency bands, defined as luceneutil's
 * {@code CreateQueries} defines them, relative to the most frequent term's doc freq {@code max}:
 * high is {@code df >= max/10}, medium {@code max/100 <= df < max/10}, and low
 * {@code max/1000 <= df < max/100} (at least 2, so a low term is not a one-off typo). luceneutil
 * takes its low terms from the top 50,000 of a 10M-document index; on a corpus the size of Europarl
 * the same cut would keep only terms seen once or twice, hence the fraction.
 *
 * <p>Only plain terms are kept: at least {@value #MIN_LENGTH} letters and nothing else, which the
 * field's analyzer turns back into the same single term. Such a term means the same thing typed in
 * a query in Lucene's classic syntax, so every query built from them parses and finds what the
 * index holds. The Europarl sample is multilingual and the standard analyzer removes no stop words,
 * so the high band is mostly function words of a dozen languages ({@code que}, {@code den},
 * {@code die}), as in luceneutil's tasks with stop words.
 */
public final class Vocabulary {
    static final int MIN_LENGTH = 3;
    private static final Set<String> OPERATORS = Set.of("AND", "OR", "NOT", "TO");
    private static final Comparator<TermStats> BY_FREQUENCY =
            Comparator.comparingInt(TermStats::docFreq).reversed().thenComparing(TermStats::term);

    private final String field;
    private final int maxDocFreq;
    private final int highMin;
    private final int mediumMin;
    private final int lowMin;
    private final List<TermStats> high;
    private final List<TermStats> medium;
    private final List<TermStats> low;
    private final Set<String> highTerms;

    private Vocabulary(String field, int maxDocFreq, int highMin, int mediumMin, int lowMin,
            List<TermStats> high, List<TermStats> medium, List<TermStats> low) {
        this.field = field;
        this.maxDocFreq = maxDocFreq;
        this.highMin = highMin;
        this.mediumMin = mediumMin;
        this.lowMin = lowMin;
        this.high = List.copyOf(high);
        this.medium = List.copyOf(medium);
        this.low = List.copyOf(low);
        this.highTerms = Set.copyOf(high.stream().map(TermStats::term).toList());
    }

    /**
     * Reads the terms of {@code field} from {@code reader}.
     *
     * @throws IllegalArgumentException when the field has no plain terms at all
     */
    public static Vocabulary read(IndexReader reader, String field, Analyzer analyzer) throws IOException {
        Terms terms = MultiTerms.getTerms(reader, field);
        if (terms == null) {
            throw new IllegalArgumentException("field '" + field + "' has no indexed terms (expected: a text field)");
        }
        List<TermStats> candidates = new ArrayList<>();
        int maxDocFreq = 0;
        TermsEnum termsEnum = terms.iterator();
        for (BytesRef bytes = termsEnum.next(); bytes != null; bytes = termsEnum.next()) {
            if (bytes.length < MIN_LENGTH) {
                continue; // fewer bytes than letters needed, whatever the script
            }
            String term = bytes.utf8ToString();
            if (isPlain(term)) {
                candidates.add(new TermStats(term, termsEnum.docFreq()));
                maxDocFreq = Math.max(maxDocFreq, termsEnum.docFreq());
            }
        }
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("field '" + field + "' has no plain terms (expected: words of "
                    + MIN_LENGTH + " or more letters)");
        }
        // Integer division as luceneutil's; on a tiny index the bands are kept apart by force.
        int lowMin = Math.max(2, maxDocFreq / 1000);
        int mediumMin = Math.max(lowMin + 1, maxDocFreq / 100);
        int highMin = Math.max(mediumMin + 1, maxDocFreq / 10);
        List<TermStats> high = new ArrayList<>();
        List<TermStats> medium = new ArrayList<>();
        List<TermStats> low = new ArrayList<>();
        for (TermStats candidate : candidates) {
            int df = candidate.docFreq();
            if (df < lowMin || !analyzesToItself(analyzer, field, candidate.term())) {
                continue;
            }
            (df >= highMin ? high : df >= mediumMin ? medium : low).add(candidate);
        }
        high.sort(BY_FREQUENCY);
        medium.sort(BY_FREQUENCY);
        low.sort(BY_FREQUENCY);
        return new Vocabulary(field, maxDocFreq, highMin, mediumMin, lowMin, high, medium, low);
    }

    /** At least {@value #MIN_LENGTH} letters and nothing else, and not a query operator. */
    static boolean isPlain(String term) {
        return term.codePointCount(0, term.length()) >= MIN_LENGTH
                && term.codePoints().allMatch(Character::isLetter)
                && !OPERATORS.contains(term);
    }

    /** True when the analyzer makes exactly {@code term} of {@code term}, as the query parser will. */
    private static boolean analyzesToItself(Analyzer analyzer, String field, String term) {
        try (TokenStream stream = analyzer.tokenStream(field, term)) {
            CharTermAttribute text = stream.addAttribute(CharTermAttribute.class);
            stream.reset();
            boolean same = stream.incrementToken() && text.toString().equals(term) && !stream.incrementToken();
            stream.end();
            return same;
        } catch (IOException e) {
            throw new UncheckedIOException("analyzing '" + term + "'", e); // a string source does not fail
        }
    }

    public String field() {
        return field;
    }

    /** The doc freq of the field's most frequent plain term; the bands are fractions of it. */
    public int maxDocFreq() {
        return maxDocFreq;
    }

    public int highMin() {
        return highMin;
    }

    public int mediumMin() {
        return mediumMin;
    }

    public int lowMin() {
        return lowMin;
    }

    /** High-band terms, most frequent first (ties by term). */
    public List<TermStats> high() {
        return high;
    }

    public List<TermStats> medium() {
        return medium;
    }

    public List<TermStats> low() {
        return low;
    }

    /** True when {@code term} is in the high band (a function word, more or less). */
    public boolean isHigh(String term) {
        return highTerms.contains(term);
    }
}
