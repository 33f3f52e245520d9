package io.hedgerow.loadgen.queries;

import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * Every partition of a Hedgerow index opened read-only as one {@link MultiReader}, with the
 * analyzer and query parsing its leaves use, so that term statistics and hit counts are those of
 * the whole index and queries are parsed exactly as the servers will parse them.
 */
public final class OpenIndex implements Closeable {
    private final IndexContext context;
    private final List<Directory> directories;
    private final MultiReader reader;
    private final IndexSearcher searcher;

    private OpenIndex(IndexContext context, List<Directory> directories, MultiReader reader) {
        this.context = context;
        this.directories = directories;
        this.reader = reader;
        this.searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null); // each query is counted once; caching would only cost memory
    }

    /**
     * Opens the index in {@code store}.
     *
     * @throws NoSuchFileException when the store holds no complete index, saying how to build one
     */
    public static OpenIndex open(PartitionStore store) throws IOException {
        if (!store.isComplete()) {
            throw new NoSuchFileException(store.dir().toString(), null,
                    "no complete index here (missing " + PartitionStore.MANIFEST_FILE + "); run ./hedgerow index first");
        }
        IndexManifest manifest = store.readManifest();
        List<Directory> directories = new ArrayList<>();
        List<IndexReader> readers = new ArrayList<>();
        try {
            for (int p = 0; p < manifest.partitions(); p++) {
                Directory directory = new MMapDirectory(store.partitionDir(p));
                directories.add(directory);
                readers.add(DirectoryReader.open(directory));
            }
            MultiReader reader = new MultiReader(readers.toArray(IndexReader[]::new), true);
            return new OpenIndex(IndexContext.of(store, manifest), directories, reader);
        } catch (IOException | RuntimeException e) {
            IOUtils.closeWhileHandlingException(readers);
            IOUtils.closeWhileHandlingException(directories);
            throw e;
        }
    }

    public IndexContext context() {
        return context;
    }

    public IndexManifest manifest() {
        return context.manifest();
    }

    public IndexReader reader() {
        return reader;
    }

    public IndexSearcher searcher() {
        return searcher;
    }

    @Override
    public void close() throws IOException {
        IOUtils.close(reader, () -> IOUtils.close(directories));
    }
}
