package io.hedgerow.api;

import java.util.Locale;

/** What a response says about the root's result cache. */
public enum CacheStatus {
    /** Served from the cache: a complete result, nothing ran. */
    HIT,
    /** Nothing usable was cached: the query ran. */
    MISS,
    /**
     * A tainted entry was found and the query ran afresh; the served result is the fresh one, or the
     * cached one (still tainted) if the fresh run covered less.
     */
    REFRESHED,
    /** The cache took no part: it is off, or the request asked to bypass it. */
    OFF;

    /** The name used in responses: {@code hit}, {@code miss}, {@code refreshed}, {@code off}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
