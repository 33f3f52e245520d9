package io.hedgerow.root.tail;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hedgerow.common.time.Ticker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Queries of death: fingerprints of queries whose canary crashed its leaf, lost its connection or
 * timed out. A blocklisted query is refused at once, without touching a leaf, until its entry
 * expires ({@code blocklistTtl}, 10 minutes by default) or an operator clears it.
 *
 * <p><b>A timeout blocklists on its second strike.</b> A canary overtaken on two leaves looks the
 * same whether the query hangs or two leaves happened to be slow with it: with 1% of sub-requests
 * delayed 1 s (the tail suite's delay scenario), a query's canary and its second opinion are both
 * delayed once in 10,000 queries, which blocklisted several healthy queries a run. So the first
 * time only fails that request ({@link #strike}); a query whose canary hangs on two leaves again
 * within the time to live is blocklisted. A crash is different: it costs leaves, so lost
 * connections on two leaves blocklist at once.
 *
 * <p>Bounded to {@code blocklistMaxEntries} fingerprints (Caffeine's size eviction). When full, the
 * cache's admission policy keeps the entries looked up most often, which are the queries still being
 * retried; an entry that loses out costs one more canary, which the canary exists to absorb. An entry
 * blocked again starts its time to live afresh.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads.
 * {@link #isBlocked} is one concurrent hash-map read plus a ticker read; it never blocks. The
 * cache's upkeep (expiry, eviction) runs on the calling threads in small amortized steps, never on a
 * thread of its own ({@code executor(Runnable::run)}); nothing is scheduled. An entry past its time
 * to live is never reported blocked, even before the upkeep removes it. Time comes only from the
 * injected {@link Ticker}.
 */
public final class Blocklist {

    /** Why a query was blocklisted. */
    public enum Reason {
        /** The canary's leaf crashed or dropped the connection while the canary was outstanding. */
        CANARY_CONNECTION_LOST("canary_connection_lost"),
        /** The canary did not answer within the canary timeout. */
        CANARY_TIMED_OUT("canary_timed_out");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /** The name used in responses and on the admin endpoint. */
        public String label() {
            return label;
        }
    }

    /**
     * One blocklisted query.
     *
     * @param fingerprint    the query's fingerprint
     * @param reason         why it was blocklisted
     * @param detail         a human-readable account (which leaf, after how long)
     * @param blockedAtNanos when, on the blocklist's ticker
     */
    public record Entry(QueryFingerprint fingerprint, Reason reason, String detail, long blockedAtNanos) {
        public Entry {
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }

    private final Ticker ticker;
    private final long ttlNanos;
    private final Cache<QueryFingerprint, Entry> entries;
    private final LongAdder blocked = new LongAdder();
    /** Queries whose canary timed out on two leaves once, within the time to live. */
    private final Cache<QueryFingerprint, Boolean> strikes;

    public Blocklist(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.ttlNanos = settings.blocklistTtl().toNanos();
        this.entries = Caffeine.newBuilder()
                .maximumSize(settings.blocklistMaxEntries())
                .expireAfterWrite(settings.blocklistTtl())
                .ticker(ticker::nanoTime)
                .executor(Runnable::run)
                .build();
        this.strikes = Caffeine.newBuilder()
                .maximumSize(settings.blocklistMaxEntries())
                .expireAfterWrite(settings.blocklistTtl())
                .ticker(ticker::nanoTime)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Records that the query's canary timed out on two leaves, and says whether it had already
     * within the time to live: true means block it now, false that this was its first strike.
     */
    public boolean strike(QueryFingerprint fingerprint) {
        boolean[] second = new boolean[1];
        strikes.asMap().compute(fingerprint, (key, held) -> {
            second[0] = held != null;
            return held != null ? null : Boolean.TRUE;
        });
        return second[0];
    }

    /** Blocklists a query (again), for the time to live from now. */
    public Entry block(QueryFingerprint fingerprint, Reason reason, String detail) {
        Entry entry = new Entry(fingerprint, reason, detail, ticker.nanoTime());
        entries.put(fingerprint, entry);
        blocked.increment();
        return entry;
    }

    /** True when the query is blocklisted: refuse it without touching a leaf. */
    public boolean isBlocked(QueryFingerprint fingerprint) {
        return entries.getIfPresent(fingerprint) != null;
    }

    /** The query's entry, for the refusal's message; null when it is not blocklisted. */
    public Entry entry(QueryFingerprint fingerprint) {
        return entries.getIfPresent(fingerprint);
    }

    /** Every entry, the most recent first. */
    public List<Entry> list() {
        List<Entry> list = new ArrayList<>(entries.asMap().values());
        list.sort(Comparator.comparingLong(Entry::blockedAtNanos).reversed()
                .thenComparing(entry -> entry.fingerprint().text()));
        return list;
    }

    /** How long ago the entry was made, in nanoseconds. */
    public long ageNanos(Entry entry) {
        return ticker.nanoTime() - entry.blockedAtNanos();
    }

    /** How long until the entry expires, in nanoseconds (0 once it has). */
    public long expiresInNanos(Entry entry) {
        return Math.max(0, entry.blockedAtNanos() + ttlNanos - ticker.nanoTime());
    }

    /** Removes one query's entry; true if it was blocklisted. */
    public boolean remove(QueryFingerprint fingerprint) {
        return entries.asMap().remove(fingerprint) != null;
    }

    /** Removes the entry whose fingerprint has this {@link QueryFingerprint#id()}; true if there was one. */
    public boolean removeById(String id) {
        return entries.asMap().keySet().removeIf(fingerprint -> fingerprint.id().equals(id));
    }

    /** Removes every entry; returns how many there were. */
    public int clear() {
        int removed = 0;
        for (QueryFingerprint fingerprint : List.copyOf(entries.asMap().keySet())) {
            if (remove(fingerprint)) {
                removed++;
            }
        }
        return removed;
    }

    /** Entries held now (expired ones are dropped first). */
    public long size() {
        entries.cleanUp();
        return entries.estimatedSize();
    }

    /** Queries blocklisted since start-up, counting a query blocked again each time. */
    public long blockedTotal() {
        return blocked.sum();
    }
}
