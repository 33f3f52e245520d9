package io.hedgerow.leaf.write;

import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.IndexContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The build the live-write tests start from: one partition of documents {@code built-<i>}. */
final class BuiltIndex {
    private BuiltIndex() {
    }

    /**
     * Builds {@code docs} documents {@code built-0..} (title {@code built <i>}) into one partition of
     * a store in {@code dir/index}, as build {@code name}.
     */
    static IndexContext build(Path dir, String name, int docs) throws IOException {
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        List<SourceDocument> sources = new ArrayList<>();
        for (int i = 0; i < docs; i++) {
            sources.add(new SourceDocument("built-" + i, Map.of("title", "built " + i), i + 1));
        }
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, name, IndexConfig.defaults(), sources);
        return IndexContext.of(store, store.readManifest());
    }

    /** The build's live directory, under which each leaf keeps its live copies. */
    static Path liveDir(IndexContext index) {
        return index.store().liveDir().resolve(index.manifest().build());
    }
}
