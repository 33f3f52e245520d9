package io.hedgerow.leaf.index;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/** The corpora that ship with Hedgerow, indexable by name without an input file. */
public enum Corpus {
    EUROPARL(EuroparlSource.NAME) {
        @Override
        public IndexConfig config() {
            return IndexConfig.europarl();
        }

        @Override
        public DocumentSource open(int scale) throws IOException {
            return scale == 1 ? EuroparlSource.open() : ScaledEuroparlSource.open(scale);
        }
    };

    private final String corpusName;

    Corpus(String corpusName) {
        this.corpusName = corpusName;
    }

    /** The name the command line and the index use, e.g. {@code europarl}. */
    public String corpusName() {
        return corpusName;
    }

    /** The index config that suits this corpus. */
    public abstract IndexConfig config();

    /** Opens the corpus for reading; the caller closes it. */
    public DocumentSource open() throws IOException {
        return open(1);
    }

    /**
     * Opens the corpus made {@code scale} times bigger by recombining its sentences (1: the corpus
     * itself); the caller closes it.
     *
     * @throws IllegalArgumentException unless {@code 1 <= scale <= }{@link ScaledEuroparlSource#MAX_SCALE}
     */
    public abstract DocumentSource open(int scale) throws IOException;

    /** The default index name at {@code scale}: {@code europarl}, or {@code europarl-x60} at scale 60. */
    public String indexName(int scale) {
        ScaledEuroparlSource.checkScale(scale);
        return scale == 1 ? corpusName : corpusName + "-x" + scale;
    }

    /** Every corpus name, for help and error messages. */
    public static List<String> names() {
        return Arrays.stream(values()).map(Corpus::corpusName).toList();
    }

    /** @throws IllegalArgumentException naming the known corpora when {@code name} is not one */
    public static Corpus named(String name) {
        for (Corpus corpus : values()) {
            if (corpus.corpusName.equals(name)) {
                return corpus;
            }
        }
        throw new IllegalArgumentException("corpus: '" + name + "' (expected one of " + names() + ")");
    }
}
