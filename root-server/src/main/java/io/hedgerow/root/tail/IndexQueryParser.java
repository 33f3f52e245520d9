package io.hedgerow.root.tail;

import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.leaf.search.QueryLimits;
import io.hedgerow.leaf.search.QueryParsing;
import java.util.List;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.search.Query;

/**
 * Parses a query's text as the leaves of the index do, for its {@link QueryFingerprint}. The root's
 * is {@link io.hedgerow.root.cluster.ServedIndex#parse}: the index's own analyzer and parser.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface IndexQueryParser {

    /**
     * @throws BadQueryException when the text does not parse, or no leaf could run it
     * @throws io.hedgerow.api.SearchException when the root cannot parse yet (it does not know the index)
     */
    Query parse(String queryText) throws BadQueryException;

    /**
     * For tests and tools without an index: Lucene's standard analyzer over the default fields
     * {@code title} and {@code body}, as an index built with the default config and those fields
     * parses its queries.
     */
    static IndexQueryParser standard() {
        QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("title", "body"),
                QueryLimits.unlimited());
        return parsing::parse;
    }
}
