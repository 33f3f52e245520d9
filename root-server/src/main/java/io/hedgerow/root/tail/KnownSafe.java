package io.hedgerow.root.tail;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hedgerow.common.time.Ticker;
import java.util.Objects;

/**
 * Fingerprints of queries that succeeded recently, so that, with {@code skipKnownSafe}, they go
 * straight to the wide fan-out without a canary: a query shape that just ran on every partition
 * without harm is very unlikely to crash a leaf now. Bounded to {@code knownSafeMaxEntries}
 * fingerprints; each is forgotten {@code knownSafeTtl} after it was last marked.
 *
 * <p>Callers should mark a fingerprint only after a canaried run succeeded: a query that skipped
 * its canary then does not extend its own time to live, so every shape is canaried again at least
 * once per {@code knownSafeTtl}, which catches a leaf release that brings a new query of death.
 * That is why the time to live runs from the last mark, not from the last check (Caffeine's
 * expire-after-write, not after-access): checked on every search, a popular shape would otherwise
 * never be canaried again. The default is long (an hour, {@link TailSettings#defaults()}), so a
 * varied workload rarely pays the canary's round trip, and the bound is large (100,000).
 *
 * <p>Keyed by the parsed query ({@link QueryFingerprint}), never by its terms: a re-spelling of a
 * safe query is safe, but a query that merely shares a term with one still gets its canary.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads; a
 * check is one concurrent hash-map read plus a ticker read and never blocks. The cache's upkeep runs
 * on the calling threads in small amortized steps, never on a thread of its own. An expired
 * fingerprint is never reported safe. Time comes only from the injected {@link Ticker}.
 */
public final class KnownSafe {
    private final Cache<QueryFingerprint, Boolean> safe;

    public KnownSafe(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(ticker, "ticker");
        this.safe = Caffeine.newBuilder()
                .maximumSize(settings.knownSafeMaxEntries())
                .expireAfterWrite(settings.knownSafeTtl())
                .ticker(ticker::nanoTime)
                .executor(Runnable::run)
                .build();
    }

    /** Marks a query safe for the time to live from now. */
    public void markSafe(QueryFingerprint fingerprint) {
        safe.put(fingerprint, Boolean.TRUE);
    }

    /** True when the query succeeded within the time to live and may skip its canary. */
    public boolean isKnownSafe(QueryFingerprint fingerprint) {
        return safe.getIfPresent(fingerprint) != null;
    }

    /** Forgets a query, as when it was blocklisted after all. */
    public void forget(QueryFingerprint fingerprint) {
        safe.invalidate(fingerprint);
    }

    /** Fingerprints held now (expired ones are dropped first). */
    public long size() {
        safe.cleanUp();
        return safe.estimatedSize();
    }
}
