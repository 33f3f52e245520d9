package io.hedgerow.leaf.index;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * Europarl made {@code scale} times bigger, for scale runs: {@code 17,597 x scale} documents, read
 * in order. The first 17,597 are the bundled corpus exactly as {@link EuroparlSource} reads it (ids
 * "1" to "17597"); every further document is a recombination of real Europarl sentences in one
 * language, with id {@code n} for the {@code n}-th document ("17598" onwards). See
 * {@link EuroparlRecombiner} for how a document is made; it depends only on its id, so every run
 * and every machine builds the same corpus, and a smaller scale is a prefix of a bigger one.
 *
 * <p>Opening loads the corpus and splits its sentences (a second or two, about 100 MB of heap);
 * each document is then made when {@link #next} asks for it, so memory does not grow with the
 * scale. Not thread-safe, like every {@link DocumentSource}.
 */
public final class ScaledEuroparlSource implements DocumentSource {
    /** The largest scale: about 176 million documents, more than one machine should index. */
    public static final int MAX_SCALE = 10_000;

    private final EuroparlRecombiner recombiner;
    private final int scale;
    private final long total;
    private long position;

    ScaledEuroparlSource(EuroparlRecombiner recombiner, int scale) {
        this.recombiner = recombiner;
        this.scale = checkScale(scale);
        this.total = (long) recombiner.originalCount() * scale;
    }

    /** Loads the bundled corpus and opens it at {@code scale}. */
    public static ScaledEuroparlSource open(int scale) throws IOException {
        return new ScaledEuroparlSource(EuroparlRecombiner.load(), checkScale(scale));
    }

    /** @throws IllegalArgumentException unless {@code 1 <= scale <= MAX_SCALE} */
    static int checkScale(int scale) {
        if (scale < 1 || scale > MAX_SCALE) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: 1.." + MAX_SCALE + ")");
        }
        return scale;
    }

    /** {@code europarl-x60}: the name the index gets by default. */
    @Override
    public String name() {
        return Corpus.EUROPARL.indexName(scale);
    }

    @Override
    public SourceEntry next() {
        return position < total ? recombiner.entry(++position) : null;
    }

    @Override
    public OptionalLong expectedDocs() {
        return OptionalLong.of(total);
    }

    @Override
    public int scale() {
        return scale;
    }

    @Override
    public void close() {
    }
}
