package io.hedgerow.leaf.search;

import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import io.hedgerow.leaf.index.Analyzers;

/**
 * What every partition of one index shares at search time: the manifest, the analyzer and query
 * parsing it implies, which fields hits return and which field gives snippets, and the leaf's query
 * cache. Immutable (the query cache is a shared, thread-safe service, {@link LeafQueryCache#off()} unless
 * the leaf turned it on).
 */
public record IndexContext(
        PartitionStore store,
        IndexManifest manifest,
        Analyzer analyzer,
        QueryParsing parsing,
        Set<String> returnedFields,
        String snippetField,
        LeafQueryCache queryCache) {

    public IndexContext {
        returnedFields = Set.copyOf(returnedFields);
        Objects.requireNonNull(queryCache, "queryCache");
    }

    /** With the {@linkplain QueryLimits#defaults() default} cost guards. */
    public static IndexContext of(PartitionStore store, IndexManifest manifest) {
        return of(store, manifest, QueryLimits.defaults());
    }

    public static IndexContext of(PartitionStore store, IndexManifest manifest, QueryLimits limits) {
        IndexConfig config = manifest.config();
        Analyzer analyzer = Analyzers.forConfig(config);
        DocumentMapper mapper = new DocumentMapper(config);
        Set<String> returned = new LinkedHashSet<>();
        for (String field : manifest.fieldsSeen()) {
            if (mapper.isReturned(field)) {
                returned.add(field);
            }
        }
        // A declared field no built document had may arrive by a live write: its hits return it too.
        if (config.fields() != null) {
            for (String field : config.fields().keySet()) {
                if (mapper.isReturned(field)) {
                    returned.add(field);
                }
            }
        }
        String snippetField = config.snippetField() != null && manifest.fieldsSeen().contains(config.snippetField())
                ? config.snippetField() : null;
        return new IndexContext(store, manifest, analyzer, QueryParsing.of(manifest, analyzer, limits),
                returned, snippetField, LeafQueryCache.off());
    }

    /** The same index, searched through this query cache. */
    public IndexContext withQueryCache(LeafQueryCache cache) {
        return new IndexContext(store, manifest, analyzer, parsing, returnedFields, snippetField, cache);
    }

    public String indexName() {
        return manifest.name();
    }
}
