package io.hedgerow.root.transport;

import java.time.Duration;

/**
 * Tells a leaf that is quiet from one that is gone without a word. A cut link or a host that
 * stopped closes nothing, and TCP retransmits for many minutes, so without this the root shows such
 * a leaf up for as long and the placement never copies its partitions elsewhere
 * ({@code benchmarks/netns-cluster.sh} found it with a cut veth). A connection pings its leaf once
 * it has heard nothing from it for {@link #PING_AFTER}, and gives it up after {@link #SILENT_AFTER}
 * without a frame of any kind. The leaf answers a ping on its event loop, whatever its workers are
 * doing, so only a dead link or a stopped process stays silent that long: 6 s is three times the
 * longest pause the tail suite models (a 2 s SIGSTOP), and about what Elasticsearch's follower
 * checks take by default to drop a node (three failed checks a second apart).
 *
 * <p><b>Assumptions and guarantees.</b> Pure: time comes from the caller. Confined to its
 * connection's event loop.
 */
final class LinkLiveness {
    /** Quiet for this long: ask. */
    static final Duration PING_AFTER = Duration.ofSeconds(1);
    /** Silent for this long: gone. */
    static final Duration SILENT_AFTER = Duration.ofSeconds(6);

    /** What a connection does about its leaf now. */
    enum Verdict {
        /** Heard lately, or asked lately: nothing. */
        QUIET,
        /** Send a ping. */
        PING,
        /** Silent too long: close the connection, as if the leaf had. */
        SILENT
    }

    private final long pingAfterNanos;
    private final long silentAfterNanos;
    private long heardNanos;
    private long pingedNanos;

    LinkLiveness(Duration pingAfter, Duration silentAfter, long nowNanos) {
        if (pingAfter.isNegative() || pingAfter.isZero() || silentAfter.compareTo(pingAfter) <= 0) {
            throw new IllegalArgumentException("pingAfter " + pingAfter + ", silentAfter " + silentAfter
                    + " (expected: 0 < pingAfter < silentAfter)");
        }
        this.pingAfterNanos = pingAfter.toNanos();
        this.silentAfterNanos = silentAfter.toNanos();
        this.heardNanos = nowNanos;
        this.pingedNanos = nowNanos;
    }

    /**
     * A frame of any kind came from the leaf, at or before {@code nowNanos} (a connection notes
     * frames as they come and tells at its next check, so that no frame pays a clock read).
     */
    void heard(long nowNanos) {
        heardNanos = nowNanos;
    }

    /** What to do at {@code nowNanos}; a {@link Verdict#PING} counts as sent. */
    Verdict check(long nowNanos) {
        long silent = nowNanos - heardNanos;
        if (silent >= silentAfterNanos) {
            return Verdict.SILENT;
        }
        if (silent >= pingAfterNanos && nowNanos - pingedNanos >= pingAfterNanos) {
            pingedNanos = nowNanos;
            return Verdict.PING;
        }
        return Verdict.QUIET;
    }

    /** How long the leaf has been silent, for the reason the connection gives. */
    Duration silence(long nowNanos) {
        return Duration.ofNanos(nowNanos - heardNanos);
    }
}
