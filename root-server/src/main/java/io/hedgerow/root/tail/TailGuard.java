package io.hedgerow.root.tail;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Durations;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.leaf.search.BadQueryException;
import io.hedgerow.root.hedge.HedgeDelay;
import java.time.Duration;
import java.util.Objects;

/**
 * The root's tail policies for one query's life, around the scatter-gather: before it, the query's
 * parse and fingerprint, the blocklist and the result cache ({@link #admit}); during it, the canary timeout and the good-enough
 * cutoff ({@link #canaryTimeout()}, {@link #cutoff()}); after it, what to serve and what to remember
 * ({@link #served}, {@link #failed}, {@link #dangerous}). One per root, shared by its event loops.
 *
 * <p><b>Assumptions and guarantees.</b> Any number of threads; nothing blocks (see the policies'
 * own notes). Time comes only from the injected {@link Ticker}.
 */
public final class TailGuard {

    /** What {@link #admit} decided. */
    public sealed interface Admission permits Refused, Served, Run {
    }

    /**
     * Refuse the query without touching a leaf: it is blocklisted ({@link SearchException.Kind#BLOCKLISTED}),
     * it does not parse ({@link SearchException.Kind#BAD_QUERY}), or the root cannot parse it yet
     * because no leaf has told it the index ({@link SearchException.Kind#UNAVAILABLE}).
     */
    public record Refused(SearchException reason) implements Admission {
    }

    /** A complete cached result: serve it. */
    public record Served(SearchResult result) implements Admission {
    }

    /**
     * Run the query.
     *
     * @param fingerprint the parsed query
     * @param cacheKey    the cache's key; null when the cache takes no part
     * @param lookup      what the cache held (a miss or a tainted entry); null when it takes no part
     * @param canaries    partitions to send the query to alone first: 0, 1 or 2
     * @param minCoverage the least fraction of documents a result at the cutoff must hold; 1 waits
     *                    for every partition
     */
    public record Run(QueryFingerprint fingerprint, CacheKey cacheKey, ResultCache.Lookup lookup, int canaries,
            double minCoverage) implements Admission {
    }

    private final TailSettings settings;
    private final Ticker ticker;
    private final Blocklist blocklist;
    private final KnownSafe knownSafe;
    private final ResultCache cache;
    private final CanaryTimeout canaryTimeout;
    private final GoodEnoughCutoff cutoff;
    private final IndexQueryParser parser;

    /**
     * With {@link IndexQueryParser#standard()}, for tests and tools without an index.
     *
     * @param latency the sub-request latency windows the canary timeout reads
     */
    public TailGuard(TailSettings settings, HedgeDelay latency, Ticker ticker) {
        this(settings, latency, ticker, IndexQueryParser.standard());
    }

    /**
     * @param latency the sub-request latency windows the canary timeout reads
     * @param parser  parses queries as the leaves do, for their fingerprints
     */
    public TailGuard(TailSettings settings, HedgeDelay latency, Ticker ticker, IndexQueryParser parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.blocklist = new Blocklist(settings, ticker);
        this.knownSafe = new KnownSafe(settings, ticker);
        this.cache = new ResultCache(settings, ticker);
        this.canaryTimeout = new CanaryTimeout(settings, latency, ticker);
        this.cutoff = new GoodEnoughCutoff(settings, ticker);
    }

    /**
     * Decides what to do with a request before any leaf is asked: refuse it if blocklisted, serve
     * it from the cache if a complete result is there, and otherwise say how to run it.
     *
     * @param startNanos when the request arrived, for a served result's {@code took}
     */
    public Admission admit(SearchRequest request, long startNanos) {
        QueryFingerprint fingerprint;
        try {
            fingerprint = fingerprint(request.query());
        } catch (SearchException e) {
            return new Refused(e);
        }
        // An explained query runs, so that its trace shows the sub-requests. One that may read stale
        // copies neither reads nor fills the cache: its answer may lack what others must see.
        boolean useCache = request.cache() && !request.explain() && !request.allowStale() && settings.cacheEnabled();
        if (!settings.canaryEnabled() && !useCache) {
            return new Run(fingerprint, null, null, 0, request.minCoverage(settings.minCoverage()));
        }
        if (settings.canaryEnabled()) {
            Blocklist.Entry entry = blocklist.entry(fingerprint);
            if (entry != null) {
                return new Refused(refusal(entry));
            }
        }
        CacheKey key = null;
        ResultCache.Lookup lookup = null;
        if (useCache) {
            key = CacheKey.of(fingerprint, request);
            lookup = cache.lookup(key);
            if (lookup instanceof ResultCache.Hit hit) {
                return new Served(hit.result().asCached(ticker.nanoTime() - startNanos, CacheStatus.HIT));
            }
        }
        int canaries = settings.skipKnownSafe() && knownSafe.isKnownSafe(fingerprint) ? 0 : settings.canaries();
        return new Run(fingerprint, key, lookup, canaries, request.minCoverage(settings.minCoverage()));
    }

    /**
     * The fingerprint of a query: its text parsed as the leaves parse it ({@link QueryFingerprint}).
     * Parsing is cached by the parser, so a repeated query costs a hash-map lookup.
     *
     * @throws SearchException {@link SearchException.Kind#BAD_QUERY} naming the problem when it does
     *                         not parse; {@link SearchException.Kind#UNAVAILABLE} while the index is unknown
     */
    public QueryFingerprint fingerprint(String query) {
        try {
            return QueryFingerprint.of(parser.parse(query));
        } catch (BadQueryException e) {
            throw new SearchException(SearchException.Kind.BAD_QUERY, e.getMessage());
        }
    }

    /**
     * What to serve for a run that produced a result, and what to remember of it: a query whose
     * canary passed is known safe; the cache stores the result and may serve its tainted entry
     * instead, if the fresh run covered less.
     *
     * @param canaryPassed true when the run sent canaries and one of them answered
     */
    public SearchResult served(Run run, SearchResult fresh, boolean canaryPassed) {
        if (canaryPassed && settings.skipKnownSafe()) {
            knownSafe.markSafe(run.fingerprint());
        }
        if (run.lookup() == null) {
            return fresh.withCache(CacheStatus.OFF);
        }
        ResultCache.Resolution resolution = cache.complete(run.cacheKey(), run.lookup(), fresh);
        return resolution.fromCache()
                ? resolution.result().asCached(fresh.tookNanos(), resolution.status())
                : resolution.result().withCache(resolution.status());
    }

    /**
     * What to serve for a run that failed altogether: the cache's tainted entry if there was one
     * (it covers more than nothing), else null and the failure stands. A dangerous query is never
     * served from the cache.
     */
    public SearchResult failed(Run run, SearchException failure, long tookNanos) {
        if (run.lookup() == null || failure.kind() == SearchException.Kind.DANGEROUS
                || failure.kind() == SearchException.Kind.BAD_QUERY) {
            return null;
        }
        ResultCache.Resolution resolution = cache.failed(run.lookup());
        return resolution == null ? null : resolution.result().asCached(tookNanos, resolution.status());
    }

    /**
     * A canary crashed its leaf, lost its connection or timed out: blocklists the query (a timeout
     * on its second strike only, see {@link Blocklist}) and returns the failure to answer with.
     *
     * @param detail what happened, e.g. "leaf 127.0.0.1:9301 dropped the connection after 3 ms"
     */
    public SearchException dangerous(Run run, Blocklist.Reason reason, String detail) {
        knownSafe.forget(run.fingerprint());
        if (reason == Blocklist.Reason.CANARY_TIMED_OUT && !blocklist.strike(run.fingerprint())) {
            return new SearchException(SearchException.Kind.DANGEROUS, "query failed: its canary " + detail
                    + ", so it went no further; not blocklisted the first time (two slow leaves can do that to a"
                    + " healthy query): the same again within " + Durations.format(settings.blocklistTtl())
                    + " blocklists it as " + run.fingerprint().id());
        }
        Blocklist.Entry entry = blocklist.block(run.fingerprint(), reason, detail);
        return new SearchException(SearchException.Kind.DANGEROUS, "query refused as dangerous: its canary "
                + detail + ", so it went no further; blocklisted for "
                + Durations.format(settings.blocklistTtl()) + " as " + entry.fingerprint().id()
                + " (DELETE /admin/blocklist/" + entry.fingerprint().id() + " clears it)");
    }

    private SearchException refusal(Blocklist.Entry entry) {
        return new SearchException(SearchException.Kind.BLOCKLISTED, "query refused: it is blocklisted as a query of "
                + "death (" + entry.reason().label() + ": its canary " + entry.detail() + ", "
                + toMillis(blocklist.ageNanos(entry)) + " ago); expires in " + toMillis(blocklist.expiresInNanos(entry))
                + "; DELETE /admin/blocklist/" + entry.fingerprint().id() + " clears it");
    }

    /** Milliseconds under a second, whole seconds above: {@code 17ms}, {@code 599s}, {@code 10m}. */
    private static String toMillis(long nanos) {
        return Durations.format(nanos < 1_000_000_000L ? Duration.ofMillis(nanos / 1_000_000) : Duration.ofSeconds(nanos / 1_000_000_000L));
    }

    public TailSettings settings() {
        return settings;
    }

    public Blocklist blocklist() {
        return blocklist;
    }

    public KnownSafe knownSafe() {
        return knownSafe;
    }

    public ResultCache cache() {
        return cache;
    }

    public CanaryTimeout canaryTimeout() {
        return canaryTimeout;
    }

    public GoodEnoughCutoff cutoff() {
        return cutoff;
    }
}
