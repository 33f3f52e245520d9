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
        public DocumentSource open() throws IOException {
            return EuroparlSource.open();
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
    public abstract DocumentSource open() throws IOException;

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
