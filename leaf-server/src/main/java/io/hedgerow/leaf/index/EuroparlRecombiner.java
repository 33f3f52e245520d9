package io.hedgerow.leaf.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Makes as many new documents as asked for out of the sentences of a corpus of {@code title TAB
 * date TAB body} documents (Europarl): the documents of {@link ScaledEuroparlSource}.
 *
 * <p>Position {@code n} (1-based) of the endless sequence is copy {@code k = (n - 1) / D} of
 * original document {@code i = (n - 1) % D}, where {@code D} is the number of originals. Copy 0 is
 * the original itself, unchanged. Any later copy gets id {@code n} (so ids go on from "17598"
 * where Europarl's own end) and:
 * <ul>
 *   <li>a body of as many sentences as the original's, each drawn at random from all sentences of
 *       the documents in the original's language (its {@code lang}, which {@link EuroparlSource}
 *       guessed);</li>
 *   <li>a title of as many {@code " - "}-separated parts as the original's, each drawn likewise from
 *       the title parts of that language;</li>
 *   <li>the original's date and language.</li>
 * </ul>
 * So a copy is as long as its original and reads as one language, and the corpus keeps Europarl's
 * mix of languages, document lengths and term statistics. The draws come from a SplitMix64
 * generator seeded by {@code n} alone: position {@code n} is the same document on every run, on
 * every machine and at every scale (the documents of scale 2 are the first ones of scale 60).
 *
 * <p>Memory: the originals (about 21 MB of text) and the offsets of their sentences; a document is
 * made only when asked for. Thread-safe: immutable after construction.
 */
final class EuroparlRecombiner {
    static final String TITLE_SEPARATOR = " - ";
    private static final String SENTENCE_SEPARATOR = " ";
    private static final long SEED_SALT = 0x5eed_e0a9_1ab5_ca1eL;

    private final List<SourceEntry> originals;
    private final String[] titles;
    private final String[] dates;
    private final String[] bodies;
    private final int[] languages;
    private final int[] sentenceCounts;
    private final int[] titlePartCounts;
    private final Pool[] sentencePools;
    private final Pool[] titlePartPools;

    /** A piece of text drawn from original document {@code doc} (a 0-based index). */
    record Piece(int doc, String text) {
    }

    /** What a copy was made of: its title parts and its body's sentences, in order. */
    record Recombination(List<Piece> titleParts, List<Piece> sentences) {
    }

    /**
     * @param originals the corpus as {@link EuroparlSource} reads it: documents with {@code title},
     *                  {@code date}, {@code body} and {@code lang}, or bad lines (which stay bad in every copy)
     */
    EuroparlRecombiner(List<SourceEntry> originals) {
        if (originals.isEmpty()) {
            throw new IllegalArgumentException("originals: empty (expected: at least one document)");
        }
        this.originals = List.copyOf(originals);
        int count = originals.size();
        titles = new String[count];
        dates = new String[count];
        bodies = new String[count];
        languages = new int[count];
        for (int i = 0; i < count; i++) {
            if (originals.get(i) instanceof SourceDocument doc) {
                titles[i] = field(doc, "title");
                dates[i] = field(doc, "date");
                bodies[i] = field(doc, "body");
                languages[i] = EuroparlSource.languageLabel(field(doc, "lang")); // guessed as it was read
            } else {
                titles[i] = dates[i] = bodies[i] = "";
                languages[i] = LanguageGuesser.UNDETERMINED;
            }
        }
        int[][] sentences = new int[count][];
        int[][] titleParts = new int[count][];
        sentenceCounts = new int[count];
        titlePartCounts = new int[count];
        for (int i = 0; i < count; i++) {
            sentences[i] = SentenceSplitter.sentences(bodies[i]);
            titleParts[i] = titleParts(titles[i]);
            sentenceCounts[i] = sentences[i].length / 2;
            titlePartCounts[i] = titleParts[i].length / 2;
        }
        sentencePools = Pool.byLanguage(bodies, sentences, languages);
        titlePartPools = Pool.byLanguage(titles, titleParts, languages);
    }

    /** Reads the bundled Europarl corpus and prepares it; takes a second or two. */
    static EuroparlRecombiner load() throws IOException {
        List<SourceEntry> originals = new ArrayList<>(EuroparlSource.DOC_COUNT);
        try (EuroparlSource source = EuroparlSource.open()) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                originals.add(entry);
            }
        }
        return new EuroparlRecombiner(originals);
    }

    /** Number of original documents: the size of one copy. */
    int originalCount() {
        return originals.size();
    }

    /** The guessed language of original {@code doc} (0-based), an index into {@link LanguageGuesser#LANGUAGES}. */
    int languageOf(int doc) {
        return languages[doc];
    }

    /** The original document {@code doc} (0-based). */
    SourceEntry original(int doc) {
        return originals.get(doc);
    }

    /** The entry at 1-based position {@code n}: an original for {@code n <= originalCount()}, else a recombined copy. */
    SourceEntry entry(long n) {
        int doc = originalOf(n);
        if (n <= originals.size()) {
            return originals.get(doc);
        }
        if (originals.get(doc) instanceof BadLine bad) {
            return new BadLine(n, bad.reason());
        }
        Recombination recombination = recombine(n);
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("title", recombination.titleParts().isEmpty() ? titles[doc] : join(recombination.titleParts(), TITLE_SEPARATOR));
        fields.put("date", dates[doc]);
        fields.put("body", recombination.sentences().isEmpty() ? bodies[doc] : join(recombination.sentences(), SENTENCE_SEPARATOR));
        fields.put("lang", EuroparlSource.languageCode(languages[doc]));
        fields.put("body_length", Integer.toString(fields.get("body").length()));
        return new SourceDocument(Long.toString(n), fields, n);
    }

    /**
     * What copy {@code n} is made of (meaningful for copies, {@code n > originalCount()}): as many
     * title parts and sentences as its original has, drawn from the original's language.
     */
    Recombination recombine(long n) {
        int doc = originalOf(n);
        SplitMix64 random = new SplitMix64(n ^ SEED_SALT);
        int language = languages[doc];
        List<Piece> titleParts = titlePartPools[language].draw(random, titlePartCounts[doc]);
        List<Piece> sentences = sentencePools[language].draw(random, sentenceCounts[doc]);
        return new Recombination(titleParts, sentences);
    }

    private int originalOf(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("n: " + n + " (expected: >= 1)");
        }
        return (int) ((n - 1) % originals.size());
    }

    private static String field(SourceDocument doc, String name) {
        return Objects.requireNonNull(doc.value(name), () -> "document " + doc.id() + " has no '" + name + "'");
    }

    private static String join(List<Piece> pieces, String separator) {
        StringBuilder text = new StringBuilder();
        for (Piece piece : pieces) {
            if (!text.isEmpty()) {
                text.append(separator);
            }
            text.append(piece.text());
        }
        return text.toString();
    }

    /** The {@code " - "}-separated parts of a title, as bounds like {@link SentenceSplitter#sentences}. */
    static int[] titleParts(String title) {
        List<Integer> bounds = new ArrayList<>();
        int from = 0;
        while (from <= title.length()) {
            int separator = title.indexOf(TITLE_SEPARATOR, from);
            int end = separator < 0 ? title.length() : separator;
            int start = from;
            int stop = end;
            while (start < stop && Character.isWhitespace(title.charAt(start))) {
                start++;
            }
            while (stop > start && Character.isWhitespace(title.charAt(stop - 1))) {
                stop--;
            }
            if (stop > start) {
                bounds.add(start);
                bounds.add(stop);
            }
            if (separator < 0) {
                break;
            }
            from = separator + TITLE_SEPARATOR.length();
        }
        return bounds.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Every piece (sentence or title part) of one language's documents, to draw from. */
    private static final class Pool {
        private final String[] texts;
        private final int[] docs;
        private final int[] starts;
        private final int[] ends;

        private Pool(String[] texts, int size) {
            this.texts = texts;
            this.docs = new int[size];
            this.starts = new int[size];
            this.ends = new int[size];
        }

        /** One pool per language (and one for {@link LanguageGuesser#UNDETERMINED}). */
        static Pool[] byLanguage(String[] texts, int[][] bounds, int[] languages) {
            int[] sizes = new int[LanguageGuesser.UNDETERMINED + 1];
            for (int doc = 0; doc < texts.length; doc++) {
                sizes[languages[doc]] += bounds[doc].length / 2;
            }
            Pool[] pools = new Pool[sizes.length];
            for (int language = 0; language < sizes.length; language++) {
                pools[language] = new Pool(texts, sizes[language]);
            }
            int[] filled = new int[sizes.length];
            for (int doc = 0; doc < texts.length; doc++) {
                Pool pool = pools[languages[doc]];
                for (int b = 0; b < bounds[doc].length; b += 2) {
                    int at = filled[languages[doc]]++;
                    pool.docs[at] = doc;
                    pool.starts[at] = bounds[doc][b];
                    pool.ends[at] = bounds[doc][b + 1];
                }
            }
            return pools;
        }

        /**
         * {@code count} pieces drawn uniformly with replacement. A pool is never empty when asked
         * for pieces: the document asking has {@code count} pieces of its own in it.
         */
        List<Piece> draw(SplitMix64 random, int count) {
            List<Piece> pieces = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int at = random.nextInt(docs.length);
                pieces.add(new Piece(docs[at], texts[docs[at]].substring(starts[at], ends[at])));
            }
            return pieces;
        }
    }

    /**
     * SplitMix64 (Steele, Lea and Flood 2014), written out rather than taken from
     * {@code java.util.SplittableRandom}, whose algorithm the JDK does not promise to keep: the
     * documents must not change with the JDK.
     */
    private static final class SplitMix64 {
        private long state;

        SplitMix64(long seed) {
            this.state = seed;
        }

        long nextLong() {
            long z = (state += 0x9e3779b97f4a7c15L);
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }

        /** Uniform in {@code [0, bound)} by Lemire's multiply-shift; its bias, at most bound / 2^32, is negligible here. */
        int nextInt(int bound) {
            return (int) (((nextLong() >>> 32) * bound) >>> 32);
        }
    }
}
