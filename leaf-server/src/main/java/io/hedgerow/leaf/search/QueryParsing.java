package io.hedgerow.leaf.search;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hedgerow.leaf.index.Analyzers;
import io.hedgerow.leaf.index.IndexManifest;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.automaton.TooComplexToDeterminizeException;

/**
 * Parses Lucene classic query syntax with the analyzer the index was built with, over the index's
 * default query fields, and refuses queries that would explode ({@link QueryCostGuard}, with the
 * leaf's {@link QueryLimits}; the limits that need the index are checked per partition). A leaf
 * receives the same query once for each of its partitions, so parsed
 * queries (immutable in Lucene, safe to share) are kept in a small cache.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: Lucene's parsers are not, so each parse
 * makes its own; the cache is Caffeine's, bounded to {@value #CACHED_QUERIES} entries. Queries that
 * fail to parse are not cached.
 */
public final class QueryParsing {
    static final int CACHED_QUERIES = 10_000;

    private final Analyzer analyzer;
    private final String[] defaultFields;
    private final QueryLimits limits;
    private final Cache<String, Query> parsed = Caffeine.newBuilder().maximumSize(CACHED_QUERIES).build();

    /** With the {@linkplain QueryLimits#defaults() default} cost guards. */
    public QueryParsing(Analyzer analyzer, List<String> defaultFields) {
        this(analyzer, defaultFields, QueryLimits.defaults());
    }

    public QueryParsing(Analyzer analyzer, List<String> defaultFields, QueryLimits limits) {
        if (defaultFields.isEmpty()) {
            throw new IllegalArgumentException("defaultFields: empty (expected: at least one field to search)");
        }
        this.analyzer = analyzer;
        this.defaultFields = defaultFields.toArray(String[]::new);
        this.limits = limits;
    }

    /**
     * How the leaves of an index parse its queries: its analyzer ({@link Analyzers#forConfig}) over
     * its default query fields, as {@link IndexContext#of} sets them up. A root that parses queries
     * this way gets the same {@link Query} a leaf does.
     */
    public static QueryParsing forIndex(IndexManifest manifest, QueryLimits limits) {
        return new QueryParsing(Analyzers.forConfig(manifest.config()), manifest.queryFields(), limits);
    }

    /** The cost guards queries are checked against. */
    public QueryLimits limits() {
        return limits;
    }

    public Query parse(String queryText) throws BadQueryException {
        if (queryText == null) {
            throw new BadQueryException("empty query", null);
        }
        if (queryText.length() > limits.maxQueryChars()) {
            throw new BadQueryException("query: " + queryText.length() + " characters (expected: <= "
                    + limits.maxQueryChars() + ", the leaf's --max-query-chars)", null);
        }
        Query query = parsed.getIfPresent(queryText);
        if (query == null) {
            query = parseUncached(queryText);
            parsed.put(queryText, query);
        }
        return query;
    }

    private Query parseUncached(String queryText) throws BadQueryException {
        if (queryText.isBlank()) {
            throw new BadQueryException("empty query", null);
        }
        QueryParser parser = defaultFields.length == 1
                ? new QueryParser(defaultFields[0], analyzer)
                : new MultiFieldQueryParser(defaultFields, analyzer);
        parser.setDefaultOperator(QueryParser.Operator.OR);
        // The cost guard refuses leading wildcards itself, naming the flag that allows them.
        parser.setAllowLeadingWildcard(true);
        try {
            Query query = parser.parse(queryText);
            QueryCostGuard.check(query, limits);
            return query;
        } catch (ParseException e) {
            throw new BadQueryException(firstLine(e.getMessage()), e);
        } catch (IndexSearcher.TooManyClauses e) {
            throw new BadQueryException("too many clauses (expected: <= " + limits.maxClauses()
                    + ", the leaf's --max-clauses)", e);
        } catch (TooComplexToDeterminizeException e) {
            throw new BadQueryException("pattern too complex: " + firstLine(e.getMessage()), e);
        }
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
