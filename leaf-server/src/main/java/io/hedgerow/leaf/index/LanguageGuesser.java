package io.hedgerow.leaf.index;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Guesses which of the 21 Europarl languages each of a set of texts is written in, so that
 * {@link EuroparlRecombiner} can keep every generated document in one language. The Europarl
 * sample mixes its languages line by line, so neither position nor the title tells them apart.
 *
 * <p>Two cheap passes, no model files:
 * <ol>
 *   <li><b>Seed words.</b> Each language has about fifteen of its most frequent function words
 *       ("the", "und", "και", "że"). A text scores each word it contains with weight
 *       {@code 1 / (number of languages whose list holds it)}, so a word like "de" that five
 *       languages share counts for little, and the best-scoring language wins. Texts that score
 *       under 1 are left out of the next pass's training.</li>
 *   <li><b>Naive Bayes over the corpus itself.</b> The seed labels train a multinomial naive Bayes
 *       model over every word (hashed into {@value #BUCKETS} buckets, add-one smoothing), and every
 *       text is labelled again with it. This repairs most of the seed pass's mistakes (on Europarl
 *       about 300 of 17,597 documents change, mostly Spanish texts that the seeds took for
 *       Romanian), because it learns thousands of words per language from the texts themselves.</li>
 * </ol>
 *
 * <p>The result depends only on the texts: the arithmetic is in a fixed order and the logarithms
 * are {@link StrictMath}'s, so every machine labels the same texts the same way. A text without
 * any letters is {@link #UNDETERMINED}.
 */
final class LanguageGuesser {
    /** The languages, by the index {@link #guess} returns. */
    static final List<String> LANGUAGES = List.of("bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "hu",
            "it", "lt", "lv", "nl", "pl", "pt", "ro", "sk", "sl", "sv");
    /** The label of a text that has no words: {@code LANGUAGES.size()}. */
    static final int UNDETERMINED = LANGUAGES.size();

    private static final int BUCKETS = 1 << 18;
    private static final String[] SEED_WORDS = {
        /* bg */ "и на да в за от е че се по това са с не които",
        /* cs */ "a se na že je v to o pro jsou také by tak které není",
        /* da */ "og at det der er en til af for ikke vi har med om som",
        /* de */ "der die und das ist nicht wir ich den des mit sich auch zu",
        /* el */ "και το να της την η του με για που τα τον των είναι θα",
        /* en */ "the of and to is that this which we are it be have not",
        /* es */ "el los las del que por una para con es se no lo como",
        /* et */ "ja on et ei see ka kui mis oma aga või ning mida",
        /* fi */ "ja on että se ei ovat myös tämä kuin mutta joka ole",
        /* fr */ "le les des et est que une nous pour dans pas qui du au",
        /* hu */ "a az és hogy nem is egy meg már ez ezt kell van csak",
        /* it */ "il di che della per non sono una gli delle anche questo è si",
        /* lt */ "ir kad yra tai į su ne bet už kaip taip iš jau dėl",
        /* lv */ "un ir ka ar par uz no lai arī kas to šo tiek",
        /* nl */ "het een van en dat niet voor zijn wij ook op te worden de",
        /* pl */ "i w na że nie się z jest do to o jak oraz przez także",
        /* pt */ "o os da do para uma com não que em dos das é na",
        /* ro */ "și de în că la a care pentru nu este să cu o din mai",
        /* sk */ "a sa na že je v to o pre sú aj by tak ktoré nie ako",
        /* sl */ "in je da se za na v so ki tudi bi ne pa to kot",
        /* sv */ "och att det som är för en av till inte vi har med om",
    };

    private LanguageGuesser() {
    }

    /** The index into {@link #LANGUAGES} of each text's language, or {@link #UNDETERMINED}. */
    static int[] guess(List<? extends CharSequence> texts) {
        Seeds seeds = Seeds.build();
        int languages = LANGUAGES.size();
        int[][] words = new int[texts.size()][];
        int[] labels = new int[texts.size()];
        double[] scores = new double[languages];
        for (int t = 0; t < texts.size(); t++) {
            long[] hashes = wordHashes(texts.get(t));
            words[t] = new int[hashes.length];
            Arrays.fill(scores, 0);
            for (int w = 0; w < hashes.length; w++) {
                words[t][w] = bucket(hashes[w]);
                seeds.score(hashes[w], scores);
            }
            int best = argMax(scores);
            labels[t] = scores[best] >= 1 ? best : UNDETERMINED;
        }

        // Word counts per language under the seed labels, turned into smoothed log probabilities.
        // Laid out bucket by bucket, so that scoring a word reads its 21 numbers from one place.
        float[] logProbability = new float[BUCKETS * languages];
        long[] totals = new long[languages];
        for (int t = 0; t < texts.size(); t++) {
            if (labels[t] != UNDETERMINED) {
                for (int bucket : words[t]) {
                    logProbability[bucket * languages + labels[t]]++;
                }
                totals[labels[t]] += words[t].length;
            }
        }
        for (int b = 0; b < BUCKETS; b++) {
            for (int l = 0; l < languages; l++) {
                int at = b * languages + l;
                logProbability[at] = (float) StrictMath.log((logProbability[at] + 1) / (totals[l] + (double) BUCKETS));
            }
        }
        for (int t = 0; t < texts.size(); t++) {
            if (words[t].length == 0) {
                labels[t] = UNDETERMINED;
                continue;
            }
            Arrays.fill(scores, 0);
            for (int bucket : words[t]) {
                int row = bucket * languages;
                for (int l = 0; l < languages; l++) {
                    scores[l] += logProbability[row + l];
                }
            }
            for (int l = 0; l < languages; l++) {
                if (totals[l] == 0) {
                    // Nothing was learnt about it: its flat model must not win over the real ones.
                    scores[l] = Double.NEGATIVE_INFINITY;
                }
            }
            labels[t] = argMax(scores);
        }
        return labels;
    }

    /** The lowest index among the highest scores. */
    private static int argMax(double[] scores) {
        int best = 0;
        for (int i = 1; i < scores.length; i++) {
            if (scores[i] > scores[best]) {
                best = i;
            }
        }
        return best;
    }

    /**
     * A 64-bit hash (FNV-1a over lower-cased code points) of each maximal run of letters in
     * {@code text}. Hashing instead of making strings keeps the corpus pass free of garbage; at 64
     * bits two distinct words of one corpus practically never collide.
     */
    static long[] wordHashes(CharSequence text) {
        long[] hashes = new long[16];
        int count = 0;
        long hash = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); ) {
            int cp = Character.codePointAt(text, i);
            i += Character.charCount(cp);
            if (Character.isLetter(cp)) {
                if (!inWord) {
                    hash = 0xcbf29ce484222325L;
                    inWord = true;
                }
                hash = (hash ^ Character.toLowerCase(cp)) * 0x100000001b3L;
            } else if (inWord) {
                if (count == hashes.length) {
                    hashes = Arrays.copyOf(hashes, count * 2);
                }
                hashes[count++] = hash;
                inWord = false;
            }
        }
        if (inWord) {
            if (count == hashes.length) {
                hashes = Arrays.copyOf(hashes, count + 1);
            }
            hashes[count++] = hash;
        }
        return Arrays.copyOf(hashes, count);
    }

    private static int bucket(long hash) {
        long z = (hash ^ (hash >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return (int) (z ^ (z >>> 33)) & (BUCKETS - 1);
    }

    /** The seed words as sorted hashes, each with its weight in every language. */
    private static final class Seeds {
        private final long[] hashes;
        private final double[][] weights;

        private Seeds(long[] hashes, double[][] weights) {
            this.hashes = hashes;
            this.weights = weights;
        }

        static Seeds build() {
            TreeMap<Long, double[]> byHash = new TreeMap<>();
            Map<Long, Integer> languagesPerWord = new HashMap<>();
            for (int l = 0; l < SEED_WORDS.length; l++) {
                for (long hash : wordHashes(SEED_WORDS[l])) {
                    if (byHash.computeIfAbsent(hash, h -> new double[LANGUAGES.size()])[l] == 0) {
                        byHash.get(hash)[l] = 1;
                        languagesPerWord.merge(hash, 1, Integer::sum);
                    }
                }
            }
            long[] hashes = new long[byHash.size()];
            double[][] weights = new double[byHash.size()][];
            int i = 0;
            for (var entry : byHash.entrySet()) {
                hashes[i] = entry.getKey();
                weights[i] = entry.getValue();
                double share = 1.0 / languagesPerWord.get(entry.getKey());
                for (int l = 0; l < weights[i].length; l++) {
                    weights[i][l] *= share;
                }
                i++;
            }
            return new Seeds(hashes, weights);
        }

        void score(long hash, double[] scores) {
            int i = Arrays.binarySearch(hashes, hash);
            if (i >= 0) {
                for (int l = 0; l < scores.length; l++) {
                    scores[l] += weights[i][l];
                }
            }
        }
    }
}
