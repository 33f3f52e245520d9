package io.hedgerow.leaf.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Documents to index, read one at a time so that an input of any size streams through in constant
 * memory. Not thread-safe: one reader pulls entries in order. Whoever opens a source closes it.
 */
public interface DocumentSource extends Closeable {

    /** A short name for messages and for the default index name: a file name or a corpus name. */
    String name();

    /**
     * The next entry in input order, or {@code null} after the last. A line that is not a valid
     * document comes back as a {@link BadLine}; an exception means the input itself could not be
     * read (and reading cannot go on).
     */
    SourceEntry next() throws IOException;

    /**
     * How many entries the source will yield, when it knows before reading them (a bundled or
     * generated corpus); empty for a file. Progress reports use it to say how far a build has got.
     */
    default OptionalLong expectedDocs() {
        return OptionalLong.empty();
    }

    /**
     * How many times over the source repeats its corpus by recombining it
     * ({@link ScaledEuroparlSource}); 1 for every other source. The index manifest records it.
     */
    default int scale() {
        return 1;
    }

    /** A source over documents made in code, e.g. by an embedding application or a test. */
    static DocumentSource of(String name, Iterable<SourceDocument> documents) {
        Objects.requireNonNull(name, "name");
        Iterator<SourceDocument> iterator = documents.iterator();
        return new DocumentSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public SourceEntry next() {
                return iterator.hasNext() ? Objects.requireNonNull(iterator.next(), "document") : null;
            }

            @Override
            public void close() {
            }
        };
    }
}
