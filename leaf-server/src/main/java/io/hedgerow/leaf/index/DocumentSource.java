package io.hedgerow.leaf.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.Objects;

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
