package io.hedgerow.root.cluster;

import io.hedgerow.api.SearchException;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.Partitioner;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.QueryLimits;
import io.hedgerow.leaf.search.QueryParsing;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.search.Query;

/**
 * The index this root serves: what every leaf must serve for the root to send it traffic, and how
 * to parse queries exactly as those leaves do.
 *
 * <p>A leaf's handshake answer names its index ({@link IndexIdentity}: name, partition count, a
 * hash of its manifest). {@link #admit} accepts it only when the name and the partition count are
 * the root's, and the hash is that of the index the root knows: the manifest of its configuration
 * when it has the index's files ({@link ClusterConfig#index()}), otherwise the first leaf admitted
 * pins it for the others. So a root configured for fewer partitions than the index has, or a leaf
 * serving another build of the index, is refused rather than silently serving part of it with
 * full coverage.
 *
 * <p>Parsing uses {@link QueryParsing#forIndex}, the leaves' own analyzer and parser, with limits
 * that refuse only what every leaf refuses (Lucene's clause limit): a leaf's own cost guards, which
 * its flags set, stay the leaf's to apply.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: event loops admit leaves and parse queries
 * concurrently. The index, once known, never changes for the life of the root: the first of
 * concurrent admissions to pin it wins, and the others are judged against it.
 */
public final class ServedIndex {
    /** At the root a query is refused only for what no leaf could accept. */
    static final QueryLimits ROOT_LIMITS = QueryLimits.unlimited();

    /** An index known: its identity, manifest, parser, partitioner, and where the root learnt it. */
    private record Known(IndexIdentity identity, IndexManifest manifest, QueryParsing parsing, Partitioner partitioner,
            String source) {
        Known(IndexIdentity identity, IndexManifest manifest, String source) {
            this(identity, manifest, QueryParsing.forIndex(manifest, ROOT_LIMITS), Partitioner.of(manifest), source);
        }
    }

    private final String name;
    private final int partitions;
    private final AtomicReference<Known> known = new AtomicReference<>();

    /**
     * @param configured the index's manifest when the root has it; null to learn it from the first
     *                   leaf whose index has this name and partition count
     */
    public ServedIndex(String name, int partitions, IndexManifest configured) {
        this.name = Objects.requireNonNull(name, "name");
        this.partitions = partitions;
        if (configured != null) {
            known.set(new Known(IndexIdentities.of(configured), configured, "the index files this root was started with"));
        }
    }

    public static ServedIndex of(ClusterConfig config) {
        return new ServedIndex(config.indexName(), config.partitions(), config.index());
    }

    /**
     * Judges the index a leaf serves.
     *
     * @param leaf which leaf, for the messages ({@code host:port})
     * @return null when the leaf may serve (the first such leaf, if the index was not known, pins
     *         it); otherwise why not, naming both sides
     */
    public String admit(String leaf, IndexIdentity identity) {
        if (!identity.getName().equals(name)) {
            return "leaf " + leaf + " serves index " + IndexIdentities.describe(identity) + ", this root serves '"
                    + name + "'";
        }
        if (identity.getPartitions() != partitions) {
            return "leaf " + leaf + " serves index '" + name + "' with " + identity.getPartitions()
                    + " partitions, this root is configured for " + partitions + " (expected: equal; with fewer the"
                    + " root would serve part of the index as if it were all of it, with more it would ask for"
                    + " partitions the leaf does not have)";
        }
        Known current = known.get();
        if (current == null) {
            IndexManifest manifest;
            try {
                manifest = IndexIdentities.manifestOf(identity);
            } catch (IOException e) {
                return "leaf " + leaf + " sent an index identity that does not hold together: " + e.getMessage();
            }
            Known learnt = new Known(identity, manifest, "leaf " + leaf + ", the first to answer");
            if (known.compareAndSet(null, learnt)) {
                return null;
            }
            current = known.get();
        }
        if (!identity.getManifestSha256().equals(current.identity().getManifestSha256())) {
            return "leaf " + leaf + " serves another build of index " + IndexIdentities.describe(identity)
                    + " than this root's " + IndexIdentities.describe(current.identity()) + ", known from "
                    + current.source() + " (expected: every leaf serving copies of one build)";
        }
        return null;
    }

    public String name() {
        return name;
    }

    public int partitions() {
        return partitions;
    }

    /** The index's manifest; null until the root has it (from its files or from a leaf). */
    public IndexManifest manifest() {
        Known current = known.get();
        return current == null ? null : current.manifest();
    }

    /** The identity of the index served; null until known. */
    public IndexIdentity identity() {
        Known current = known.get();
        return current == null ? null : current.identity();
    }

    /**
     * Parses a query as the leaves of this index do.
     *
     * @throws BadQueryException when it does not parse, or no leaf could run it
     * @throws SearchException   ({@link SearchException.Kind#UNAVAILABLE}) while the index is not
     *                           known: no leaf of it has answered the handshake yet, so none could
     *                           answer the query either
     */
    public Query parse(String queryText) throws BadQueryException {
        return requireKnown().parsing().parse(queryText);
    }

    /**
     * The partitions a search with routing value {@code routing} asks, in order: those that hold
     * the documents of that value of the index's routing key.
     *
     * @throws SearchException {@link SearchException.Kind#BAD_QUERY} when the index has no routing
     *                         key; {@link SearchException.Kind#UNAVAILABLE} while the index is not known
     */
    public int[] partitionsOf(String routing) {
        Partitioner partitioner = requireKnown().partitioner();
        if (partitioner.routing() == null) {
            throw new SearchException(SearchException.Kind.BAD_QUERY, "routing: index '" + name + "' has no routing"
                    + " key (it was built without --routing), so every search asks every partition (expected: no"
                    + " routing)");
        }
        return partitioner.partitionsOf(routing);
    }

    /** The index's partitioner (its routing key, if any); null until the index is known. */
    public Partitioner partitioner() {
        Known current = known.get();
        return current == null ? null : current.partitioner();
    }

    private Known requireKnown() {
        Known current = known.get();
        if (current == null) {
            throw new SearchException(SearchException.Kind.UNAVAILABLE, "no leaf serving index '" + name + "' with "
                    + partitions + " partitions has answered this root yet, so it cannot parse queries for it (GET"
                    + " /cluster says which leaves are refused, and why)");
        }
        return current;
    }
}
