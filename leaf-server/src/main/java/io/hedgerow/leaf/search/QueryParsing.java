package io.hedgerow.leaf.search;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hedgerow.leaf.index.Analyzers;
import io.hedgerow.leaf.index.IndexConfig;
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
    /** The index's config and fields, for typed fields and per-language fields; null: every field is text. */
    private final IndexManifest manifest;
    private final Cache<String, Query> parsed = Caffeine.newBuilder().maximumSize(CACHED_QUERIES)
            // Upkeep on the parsing thread, a little at a time: by default Caffeine hands it to the
            // common pool, whose threads woke and parked again for every sub-request (about 2% of a
            // loaded leaf's CPU in /proc's thread times, all of it waking and parking).
            .executor(Runnable::run)
            .build();

    /** With the {@linkplain QueryLimits#defaults() default} cost guards. */
    public QueryParsing(Analyzer analyzer, List<String> defaultFields) {
        this(analyzer, defaultFields, QueryLimits.defaults());
    }

    public QueryParsing(Analyzer analyzer, List<String> defaultFields, QueryLimits limits) {
        this(analyzer, defaultFields, limits, null);
    }

    private QueryParsing(Analyzer analyzer, List<String> defaultFields, QueryLimits limits, IndexManifest manifest) {
        if (defaultFields.isEmpty()) {
            throw new IllegalArgumentException("defaultFields: empty (expected: at least one field to search)");
        }
        this.analyzer = analyzer;
        this.defaultFields = defaultFields.toArray(String[]::new);
        this.limits = limits;
        this.manifest = manifest;
        if (manifest != null) {
            warmUp();
        }
    }

    /**
     * Parses a word over every default field once, so that the first real query does not pay for
     * loading and building their analyzers and the parser. It was added when a query without
     * {@code lang} searched every per-language copy, whose twenty-odd language analyzers took about
     * 0.7 s to load on the development machine (enough to time out a cold first search); now such a
     * query searches the fields themselves, and a query in a language loads that one language's
     * analyzer on first use, which this does not warm.
     */
    private void warmUp() {
        try {
            parseUncached("warm", null);
        } catch (BadQueryException | RuntimeException e) {
            // Nothing to warm: the first real query reports whatever is wrong.
        }
    }

    /** Parsing for an index whose analyzer is {@code analyzer} (built from its config). */
    static QueryParsing of(IndexManifest manifest, Analyzer analyzer, QueryLimits limits) {
        return new QueryParsing(analyzer, manifest.queryFields(), limits, manifest);
    }

    /**
     * How the leaves of an index parse its queries: its analyzer ({@link Analyzers#forConfig}) over
     * its default query fields, as {@link IndexContext#of} sets them up. A root that parses queries
     * this way gets the same {@link Query} a leaf does.
     */
    public static QueryParsing forIndex(IndexManifest manifest, QueryLimits limits) {
        return of(manifest, Analyzers.forConfig(manifest.config()), limits);
    }

    /** The cost guards queries are checked against. */
    public QueryLimits limits() {
        return limits;
    }

    public Query parse(String queryText) throws BadQueryException {
        return parse(queryText, null);
    }

    /**
     * Parses {@code queryText} as a query in {@code language} (an ISO 639-1 code such as {@code de};
     * null or empty: any language): a text field with per-language copies is searched in that
     * language's copy, with its analyzer; without a language, in the field itself
     * ({@link IndexConfig#queryFields(List, List)}). Several languages, comma-separated
     * ({@code de,fr}), or {@code *} for every language the index has seen, search each one's copy:
     * every term becomes a disjunction over the copies, which the cost estimate and the expansion
     * budget count whole (21 copies: 21 times the term lookups).
     */
    public Query parse(String queryText, String language) throws BadQueryException {
        if (language != null && language.isEmpty()) {
            language = null;
        }
        if (language != null && !"*".equals(language)) {
            for (String code : language.split(",", -1)) {
                if (!Analyzers.isLanguageCode(code)) {
                    throw new BadQueryException("lang: '" + code + "' (expected: language codes of 2 to 8 lower-case"
                            + " letters, such as de or de,fr, or * for every language)", null);
                }
            }
        }
        if (queryText == null) {
            throw new BadQueryException("empty query", null);
        }
        if (queryText.length() > limits.maxQueryChars()) {
            throw new BadQueryException("query: " + queryText.length() + " characters (expected: <= "
                    + limits.maxQueryChars() + ", the leaf's --max-query-chars)", null);
        }
        String key = language == null ? queryText : language + '\u0000' + queryText;
        Query query = parsed.getIfPresent(key);
        if (query == null) {
            query = parseUncached(queryText, language);
            parsed.put(key, query);
        }
        return query;
    }

    private Query parseUncached(String queryText, String language) throws BadQueryException {
        if (queryText.isBlank()) {
            throw new BadQueryException("empty query", null);
        }
        String[] fields = defaultFields; // the index's fields for a query in any language
        if (manifest != null && language != null) {
            List<String> languages = "*".equals(language)
                    ? manifest.config().languagesSeen(manifest.fieldsSeen())
                    : List.of(language.split(","));
            List<String> forLanguage = manifest.config().queryFields(manifest.fieldsSeen(), languages);
            if (!forLanguage.isEmpty()) {
                fields = forLanguage.toArray(String[]::new);
            }
        }
        QueryParser parser = manifest == null
                ? (fields.length == 1 ? new QueryParser(fields[0], analyzer) : new MultiFieldQueryParser(fields, analyzer))
                : new TypedQueryParser(fields, analyzer, manifest.config());
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

    /**
     * The classic parser, except that {@code field:value} and {@code field:[a TO b]} on a long,
     * double, date or boolean field become point queries (exact, no term expansion), as
     * Elasticsearch's query_string does.
     */
    private static final class TypedQueryParser extends MultiFieldQueryParser {
        private final IndexConfig config;

        TypedQueryParser(String[] fields, Analyzer analyzer, IndexConfig config) {
            super(fields, analyzer);
            this.config = config;
        }

        @Override
        protected Query newFieldQuery(Analyzer analyzer, String field, String queryText, boolean quoted)
                throws ParseException {
            io.hedgerow.leaf.index.FieldSpec.Type type = config.typeOf(field);
            if (type != null && type.numeric()) {
                try {
                    return Filters.exact(field, type, queryText);
                } catch (IllegalArgumentException e) {
                    throw new ParseException(e.getMessage());
                }
            }
            return super.newFieldQuery(analyzer, field, queryText, quoted);
        }

        @Override
        protected Query getRangeQuery(String field, String part1, String part2, boolean startInclusive,
                boolean endInclusive) throws ParseException {
            io.hedgerow.leaf.index.FieldSpec.Type type = field == null ? null : config.typeOf(field);
            if (type != null && type.numeric()) {
                try {
                    return Filters.range(field, type, "*".equals(part1) ? null : part1, startInclusive,
                            "*".equals(part2) ? null : part2, endInclusive);
                } catch (IllegalArgumentException e) {
                    throw new ParseException(e.getMessage());
                }
            }
            return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
        }
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
