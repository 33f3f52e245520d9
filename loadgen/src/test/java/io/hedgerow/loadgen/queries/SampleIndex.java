package io.hedgerow.loadgen.queries;

import io.hedgerow.leaf.index.DocumentSource;
import io.hedgerow.leaf.index.EuroparlSource;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A real index for the query tests: the first {@value #DOCS} Europarl documents (real multilingual
 * text, so bands, co-occurrence and phrases behave as on the full corpus) in 4 partitions, with the
 * Europarl config. Built once per module build into {@code target/test-data} and reused.
 */
public final class SampleIndex {
    public static final int DOCS = 2000;
    public static final int PARTITIONS = 4;
    private static final Path DIR = Path.of("target", "test-data", "europarl-first-" + DOCS);

    private SampleIndex() {
    }

    /** The index, built on first use; a complete one from an earlier run is reused. */
    public static synchronized PartitionStore store() throws IOException {
        PartitionStore store = new PartitionStore(DIR);
        if (store.isComplete()) {
            return store;
        }
        return buildInto(store);
    }

    /** A copy of the sample index in {@code dir}, e.g. under a test's own data directory. */
    public static PartitionStore copyTo(Path dir) throws IOException {
        Path from = store().dir();
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, dir.resolve(from.relativize(file).toString()));
            }
        }
        return new PartitionStore(dir);
    }

    private static PartitionStore buildInto(PartitionStore store) throws IOException {
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(PARTITIONS), IndexProgress.none());
        try (DocumentSource source = firstDocs(EuroparlSource.open(), DOCS)) {
            builder.build(store, EuroparlSource.NAME, IndexConfig.europarl(), source);
        }
        return store;
    }

    private static DocumentSource firstDocs(DocumentSource source, int docs) {
        return new DocumentSource() {
            private int read;

            @Override
            public String name() {
                return source.name();
            }

            @Override
            public SourceEntry next() throws IOException {
                return read++ < docs ? source.next() : null;
            }

            @Override
            public void close() throws IOException {
                source.close();
            }
        };
    }
}
