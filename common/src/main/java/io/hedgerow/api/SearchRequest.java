package io.hedgerow.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One query as a client asks it. Immutable; build with {@link #builder(String)} or {@link #of}.
 *
 * @param query              Lucene classic query syntax
 * @param k                  number of hits wanted, 0..{@value #MAX_K}; 0 returns counts only
 * @param timeoutMillis      time the root waits for partitions before answering with what it
 *                           has; 0 means the cluster's default
 * @param snippets           whether hits carry a highlighted snippet
 * @param storedFields       whether hits carry their stored fields
 * @param totalHitsThreshold hits are counted exactly up to this many per partition; beyond it
 *                           the total is a lower bound. Higher is exact but slower.
 * @param hedge              how a slow partition is made up for: no backup, a backup after the
 *                           hedge delay, or tied copies; null means the cluster's default
 * @param hedgeAfterMillis   a fixed hedge delay for this query (implies {@link HedgeMode#HEDGED}
 *                           when {@code hedge} is null); 0 means the cluster's adaptive delay
 * @param explain            whether the result lists every sub-request sent for it
 * @param priority           the leaves' service class for this query
 * @param minCoverage        the fraction of documents the answered partitions must hold for a
 *                           result to be returned at the good-enough cutoff, (0, 1]; 1 waits for
 *                           every partition (up to the timeout); 0 means the cluster's default
 * @param cache              whether the result may come from, and go to, the root's result cache
 * @param routing            a value of the index's routing key: only the partitions that key's
 *                           documents live in are searched; null searches every partition
 * @param filter             a non-scoring filter, or null for none
 * @param sort               sort keys in order; empty for the classic order (score, then partition
 *                           and document)
 * @param from               hits to skip before the k returned; {@code from + k} is at most
 *                           {@value #MAX_WINDOW}
 * @param searchAfter        the last hit's {@link Hit#sort() sort values} (one per sort key, then the
 *                           id) to page after it; null for the first page. Needs a sort, and from 0
 * @param lang               the query's language (e.g. {@code de}): per-language text fields are
 *                           searched in that language's copy only; several, comma-separated
 *                           ({@code de,fr}, kept sorted and once each), search each one's copy;
 *                           {@value #ALL_LANGUAGES} searches the copy of every language the index
 *                           has. Null searches the fields themselves (standard analysis)
 * @param aggs               named aggregations over the matching documents, in the order given;
 *                           empty for none (then nothing of them is computed anywhere)
 * @param fields             the stored fields each hit carries, by name (Elasticsearch's {@code fields}):
 *                           null for every returned field (the default), empty for none; at most
 *                           {@value #MAX_FIELDS}. Ignored when {@code storedFields} is false
 * @param highlight          fragments of chosen text fields with their matches tagged, per hit
 *                           (Elasticsearch's {@code highlight}); null for none (the {@code snippet}
 *                           is as {@code snippets} says either way)
 * @param allowStale         whether a partition none of whose in-sync replicas can answer may be read
 *                           from an out-of-sync one (it misses acknowledged writes; the result is then
 *                           degraded {@link Coverage.Degradation#STALE_COPY}). False (the default): such
 *                           a partition goes unanswered, and the result is tainted without it. Such a
 *                           search neither reads nor fills the result cache
 */
public record SearchRequest(
        String query,
        int k,
        long timeoutMillis,
        boolean snippets,
        boolean storedFields,
        int totalHitsThreshold,
        HedgeMode hedge,
        long hedgeAfterMillis,
        boolean explain,
        QueryPriority priority,
        double minCoverage,
        boolean cache,
        String routing,
        Filter filter,
        List<SortField> sort,
        int from,
        List<Object> searchAfter,
        String lang,
        Map<String, Aggregation> aggs,
        List<String> fields,
        Highlight highlight,
        boolean allowStale) {

    /** Most hits one search may return (k); a page may start as deep as {@link #MAX_WINDOW} minus k. */
    public static final int MAX_K = 1000;
    /** Most hits a partition counts exactly (leaves refuse more on the wire). */
    public static final int MAX_TOTAL_HITS_THRESHOLD = 100_000_000;
    public static final int DEFAULT_K = 10;
    public static final int DEFAULT_TOTAL_HITS_THRESHOLD = 1000;
    public static final int MAX_QUERY_CHARS = 8192;
    public static final long MAX_HEDGE_AFTER_MILLIS = 60_000;
    public static final int MAX_ROUTING_CHARS = 512;
    /** Most hits a search may page through with {@code from} ({@code from + k}), as Elasticsearch's max_result_window. */
    public static final int MAX_WINDOW = 10_000;
    /** Most sort keys. */
    public static final int MAX_SORT_FIELDS = 8;
    /** {@code lang} for every language the index has. */
    public static final String ALL_LANGUAGES = "*";
    /** A language code: compiled once, not per request ({@link String#matches} compiles its pattern each call). */
    private static final Pattern LANG = Pattern.compile("[a-z]{2,8}");
    /** Most field names one request may list in {@code fields}. */
    public static final int MAX_FIELDS = 100;

    public SearchRequest {
        Objects.requireNonNull(query, "query");
        if (query.isBlank()) {
            throw new IllegalArgumentException("query: empty (expected: a query in Lucene syntax, e.g. \"european parliament\")");
        }
        if (query.length() > MAX_QUERY_CHARS) {
            throw new IllegalArgumentException("query: " + query.length() + " characters (expected: <= " + MAX_QUERY_CHARS + ")");
        }
        if (k < 0 || k > MAX_K) {
            throw new IllegalArgumentException("k: " + k + " (expected: 0.." + MAX_K + ", 0 for counts only)");
        }
        if (from < 0 || (long) from + k > MAX_WINDOW) {
            throw new IllegalArgumentException("from: " + from + " with k " + k + " (expected: from >= 0 and from + k <= "
                    + MAX_WINDOW + "; page deeper with search_after)");
        }
        sort = sort == null ? List.of() : List.copyOf(sort);
        if (sort.size() > MAX_SORT_FIELDS) {
            throw new IllegalArgumentException("sort: " + sort.size() + " keys (expected: <= " + MAX_SORT_FIELDS + ")");
        }
        if (filter != null && filter.clauses() > Filter.MAX_CLAUSES) {
            throw new IllegalArgumentException("filter: " + filter.clauses() + " clauses (expected: <= " + Filter.MAX_CLAUSES + ")");
        }
        if (searchAfter != null) {
            if (sort.isEmpty()) {
                throw new IllegalArgumentException("search_after: needs a sort (expected: sort, and search_after as the"
                        + " last hit's sort values)");
            }
            if (from != 0) {
                throw new IllegalArgumentException("search_after with from " + from + " (expected: from 0 with search_after)");
            }
            if (searchAfter.size() != sort.size() + 1) {
                throw new IllegalArgumentException("search_after: " + searchAfter.size() + " values (expected: "
                        + (sort.size() + 1) + ", the last hit's sort values: one per sort key, then its id)");
            }
            for (Object value : searchAfter) {
                if (value != null && !(value instanceof String) && !(value instanceof Number) && !(value instanceof Boolean)) {
                    throw new IllegalArgumentException("search_after: " + value + " (expected: strings, numbers, booleans or null)");
                }
            }
            searchAfter = Collections.unmodifiableList(new ArrayList<>(searchAfter));
        }
        aggs = Aggregation.checked(aggs);
        if (fields != null) {
            if (fields.size() > MAX_FIELDS) {
                throw new IllegalArgumentException("fields: " + fields.size() + " names (expected: <= " + MAX_FIELDS + ")");
            }
            for (String field : fields) {
                if (field == null || field.isBlank()) {
                    throw new IllegalArgumentException("fields: a blank or null name (expected: stored field names, e.g."
                            + " [\"title\", \"date\"])");
                }
            }
            // Listed once each, in the order first asked: a duplicate would only load the field twice.
            fields = List.copyOf(new java.util.LinkedHashSet<>(fields));
        }
        lang = canonicalLang(lang);
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout_ms: " + timeoutMillis + " (expected: >= 1, or 0 for the default)");
        }
        if (totalHitsThreshold < 1 || totalHitsThreshold > MAX_TOTAL_HITS_THRESHOLD) {
            throw new IllegalArgumentException("total_hits_threshold: " + totalHitsThreshold + " (expected: 1.."
                    + MAX_TOTAL_HITS_THRESHOLD + ")");
        }
        if (hedgeAfterMillis < 0 || hedgeAfterMillis > MAX_HEDGE_AFTER_MILLIS) {
            throw new IllegalArgumentException("hedge_after_ms: " + hedgeAfterMillis + " (expected: 1.."
                    + MAX_HEDGE_AFTER_MILLIS + ", or 0 for the cluster's adaptive delay)");
        }
        if (hedgeAfterMillis > 0 && hedge != null && hedge != HedgeMode.HEDGED) {
            throw new IllegalArgumentException("hedge_after_ms: " + hedgeAfterMillis + " with hedge "
                    + hedge.name().toLowerCase() + " (expected: hedge hedged, or no hedge_after_ms)");
        }
        Objects.requireNonNull(priority, "priority");
        if (minCoverage != 0 && !(minCoverage > 0 && minCoverage <= 1)) {
            throw new IllegalArgumentException("min_coverage: " + minCoverage
                    + " (expected: > 0.0 and <= 1.0, or 0 for the cluster's default)");
        }
        if (routing != null && (routing.isEmpty() || routing.length() > MAX_ROUTING_CHARS)) {
            throw new IllegalArgumentException("routing: " + routing.length() + " characters (expected: 1.."
                    + MAX_ROUTING_CHARS + ", or no routing to search every partition)");
        }
    }

    /** Without aggregations, a {@code fields} list (every returned stored field) or highlighting. */
    public SearchRequest(String query, int k, long timeoutMillis, boolean snippets, boolean storedFields,
            int totalHitsThreshold, HedgeMode hedge, long hedgeAfterMillis, boolean explain, QueryPriority priority,
            double minCoverage, boolean cache, String routing, Filter filter, List<SortField> sort, int from,
            List<Object> searchAfter, String lang) {
        this(query, k, timeoutMillis, snippets, storedFields, totalHitsThreshold, hedge, hedgeAfterMillis, explain,
                priority, minCoverage, cache, routing, filter, sort, from, searchAfter, lang, Map.of(), null, null, false);
    }

    /** Without filter, sort or paging: the classic scored search. */
    public SearchRequest(String query, int k, long timeoutMillis, boolean snippets, boolean storedFields,
            int totalHitsThreshold, HedgeMode hedge, long hedgeAfterMillis, boolean explain, QueryPriority priority,
            double minCoverage, boolean cache, String routing) {
        this(query, k, timeoutMillis, snippets, storedFields, totalHitsThreshold, hedge, hedgeAfterMillis, explain,
                priority, minCoverage, cache, routing, null, List.of(), 0, null, null);
    }

    /**
     * The languages {@code lang} names, sorted: one or several codes, or {@value #ALL_LANGUAGES}
     * alone; empty without a language.
     */
    public List<String> languages() {
        return lang == null ? List.of() : List.of(lang.split(","));
    }

    /**
     * {@code lang} validated and in one spelling, so that equal requests have equal keys: codes of
     * 2 to 8 lower-case letters, sorted and once each, comma-separated; or {@value #ALL_LANGUAGES}
     * alone. Null: null.
     */
    static String canonicalLang(String lang) {
        if (lang == null) {
            return null;
        }
        if (ALL_LANGUAGES.equals(lang) || LANG.matcher(lang).matches()) {
            return lang;
        }
        if (lang.indexOf(',') < 0) {
            throw new IllegalArgumentException("lang: '" + lang + "' (expected: a language code of 2 to 8 lower-case letters,"
                    + " such as de; several, comma-separated, such as de,fr; or " + ALL_LANGUAGES + " for every language)");
        }
        java.util.TreeSet<String> codes = new java.util.TreeSet<>();
        for (String code : lang.split(",", -1)) {
            code = code.strip();
            if (!LANG.matcher(code).matches()) {
                throw new IllegalArgumentException("lang: '" + code + "' in '" + lang + "' (expected: language codes of 2"
                        + " to 8 lower-case letters, such as de or de,fr, or " + ALL_LANGUAGES + " alone for every language)");
            }
            codes.add(code);
        }
        return String.join(",", codes);
    }

    /** Hits each partition must return so the merged page is right: {@code from + k}, at least 1. */
    public int window() {
        return Math.max(1, from + k);
    }

    /** Whether hits come sorted by fields (or an explicit {@code _score}) rather than in the classic order. */
    public boolean sorted() {
        return !sort.isEmpty();
    }

    /** Whether hits carry stored fields at all: asked for, and not an empty {@code fields} list. */
    public boolean returnsFields() {
        return storedFields && (fields == null || !fields.isEmpty());
    }

    /** Without a routing value: every partition. */
    public SearchRequest(String query, int k, long timeoutMillis, boolean snippets, boolean storedFields,
            int totalHitsThreshold, HedgeMode hedge, long hedgeAfterMillis, boolean explain, QueryPriority priority,
            double minCoverage, boolean cache) {
        this(query, k, timeoutMillis, snippets, storedFields, totalHitsThreshold, hedge, hedgeAfterMillis, explain,
                priority, minCoverage, cache, null);
    }

    /** The hedging mode this query asks for, or {@code clusterDefault} when it names none. */
    public HedgeMode hedgeMode(HedgeMode clusterDefault) {
        if (hedge != null) {
            return hedge;
        }
        return hedgeAfterMillis > 0 ? HedgeMode.HEDGED : clusterDefault;
    }

    /** The minimum coverage this query asks for, or {@code clusterDefault} when it names none. */
    public double minCoverage(double clusterDefault) {
        return minCoverage > 0 ? minCoverage : clusterDefault;
    }

    /** The query with every other setting at its default. */
    public static SearchRequest of(String query) {
        return builder(query).build();
    }

    public static SearchRequest of(String query, int k) {
        return builder(query).k(k).build();
    }

    public static Builder builder(String query) {
        return new Builder(query);
    }

    public Builder toBuilder() {
        return new Builder(query).k(k).timeoutMillis(timeoutMillis).snippets(snippets)
                .storedFields(storedFields).totalHitsThreshold(totalHitsThreshold).hedge(hedge)
                .hedgeAfterMillis(hedgeAfterMillis).explain(explain).priority(priority).minCoverage(minCoverage)
                .cache(cache).routing(routing).filter(filter).sort(sort).from(from).searchAfter(searchAfter).lang(lang).aggs(aggs)
                .fields(fields).highlight(highlight).allowStale(allowStale);
    }

    /** Builder for {@link SearchRequest}; every setting has a default. */
    public static final class Builder {
        private final String query;
        private int k = DEFAULT_K;
        private long timeoutMillis;
        private boolean snippets = true;
        private boolean storedFields = true;
        private int totalHitsThreshold = DEFAULT_TOTAL_HITS_THRESHOLD;
        private HedgeMode hedge;
        private long hedgeAfterMillis;
        private boolean explain;
        private QueryPriority priority = QueryPriority.INTERACTIVE;
        private double minCoverage;
        private boolean cache = true;
        private String routing;
        private Filter filter;
        private List<SortField> sort = List.of();
        private int from;
        private List<Object> searchAfter;
        private String lang;
        private Map<String, Aggregation> aggs = Map.of();
        private List<String> fields;
        private Highlight highlight;
        private boolean allowStale;

        private Builder(String query) {
            this.query = query;
        }

        public Builder k(int k) {
            this.k = k;
            return this;
        }

        public Builder timeoutMillis(long timeoutMillis) {
            this.timeoutMillis = timeoutMillis;
            return this;
        }

        public Builder snippets(boolean snippets) {
            this.snippets = snippets;
            return this;
        }

        public Builder storedFields(boolean storedFields) {
            this.storedFields = storedFields;
            return this;
        }

        public Builder totalHitsThreshold(int totalHitsThreshold) {
            this.totalHitsThreshold = totalHitsThreshold;
            return this;
        }

        /** Null for the cluster's default. */
        public Builder hedge(HedgeMode hedge) {
            this.hedge = hedge;
            return this;
        }

        public Builder hedgeAfterMillis(long hedgeAfterMillis) {
            this.hedgeAfterMillis = hedgeAfterMillis;
            return this;
        }

        public Builder explain(boolean explain) {
            this.explain = explain;
            return this;
        }

        public Builder priority(QueryPriority priority) {
            this.priority = priority;
            return this;
        }

        /** 0 for the cluster's default. */
        public Builder minCoverage(double minCoverage) {
            this.minCoverage = minCoverage;
            return this;
        }

        /** False: neither served from nor stored in the result cache. */
        public Builder cache(boolean cache) {
            this.cache = cache;
            return this;
        }

        /** Searches only the partitions of this routing key value (null: every partition). */
        public Builder routing(String routing) {
            this.routing = routing;
            return this;
        }

        /** A non-scoring filter (null: none). */
        public Builder filter(Filter filter) {
            this.filter = filter;
            return this;
        }

        public Builder sort(List<SortField> sort) {
            this.sort = sort;
            return this;
        }

        public Builder from(int from) {
            this.from = from;
            return this;
        }

        /** The last hit's sort values (null: the first page). */
        public Builder searchAfter(List<Object> searchAfter) {
            this.searchAfter = searchAfter;
            return this;
        }

        /**
         * The query's language (null: the fields themselves): a code such as {@code de}, several
         * comma-separated ({@code de,fr}), or {@value SearchRequest#ALL_LANGUAGES} for every language.
         */
        public Builder lang(String lang) {
            this.lang = lang;
            return this;
        }

        /** The query's languages, each one's copy searched (empty or null: the fields themselves). */
        public Builder langs(List<String> langs) {
            this.lang = langs == null || langs.isEmpty() ? null : String.join(",", langs);
            return this;
        }

        /** Named aggregations, in the order given (empty or null: none). */
        public Builder aggs(Map<String, Aggregation> aggs) {
            this.aggs = aggs;
            return this;
        }

        /** The stored fields each hit carries (null: every returned field, the default; empty: none). */
        public Builder fields(List<String> fields) {
            this.fields = fields;
            return this;
        }

        /** Fragments of chosen fields per hit (null: none). */
        public Builder allowStale(boolean allowStale) {
            this.allowStale = allowStale;
            return this;
        }

        public Builder highlight(Highlight highlight) {
            this.highlight = highlight;
            return this;
        }

        /** Counts every hit exactly (up to {@link #MAX_TOTAL_HITS_THRESHOLD} per partition). */
        public Builder exactTotalHits() {
            return totalHitsThreshold(MAX_TOTAL_HITS_THRESHOLD);
        }

        /** @throws IllegalArgumentException naming the first invalid setting */
        public SearchRequest build() {
            return new SearchRequest(query, k, timeoutMillis, snippets, storedFields, totalHitsThreshold, hedge,
                    hedgeAfterMillis, explain, priority, minCoverage, cache, routing, filter, sort, from, searchAfter, lang, aggs, fields, highlight,
                    allowStale);
        }
    }
}
