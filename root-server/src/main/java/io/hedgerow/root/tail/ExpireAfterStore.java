package io.hedgerow.root.tail;

import com.github.benmanes.caffeine.cache.Expiry;

/**
 * An entry lives a time to live from when its result was stored, not from Caffeine's last write
 * of its key: a store that keeps the entry held (a compute returning it) must not extend its life.
 */
record ExpireAfterStore(long ttlNanos) implements Expiry<CacheKey, ResultCache.Entry> {
    @Override
    public long expireAfterCreate(CacheKey key, ResultCache.Entry entry, long currentTime) {
        return remaining(entry, currentTime);
    }

    @Override
    public long expireAfterUpdate(CacheKey key, ResultCache.Entry entry, long currentTime, long currentDuration) {
        return remaining(entry, currentTime);
    }

    @Override
    public long expireAfterRead(CacheKey key, ResultCache.Entry entry, long currentTime, long currentDuration) {
        return currentDuration;
    }

    private long remaining(ResultCache.Entry entry, long currentTime) {
        return Math.max(0, entry.storedAtNanos() + ttlNanos - currentTime);
    }
}
