package io.hedgerow.root.tail;

/**
 * What to do about canaries still out at a check, from what their leaves did since the canaries
 * went out. Pure: the Gatherer gathers the facts, this decides.
 *
 * <ul>
 *   <li>A leaf finished sub-requests sent <em>after</em> the canary ({@code overtaken}): later work
 *       overtook it, so the leaf works and this canary does not. Once the canary timeout has
 *       passed, a second opinion: {@link Verdict#RESEND} it to another replica, in place of the
 *       slow copy. If it is overtaken there too, the query is {@link Verdict#DANGEROUS}: it hangs
 *       on two leaves. One leaf alone could be in distress (a stall that holds running searches, a
 *       GC storm), which a benchmark saw blocklist a healthy query.</li>
 *   <li>Every leaf holding a canary answered nothing at all ({@code silent}): the leaf has gone
 *       silent (a stall, a GC pause, a dead machine), which is not the query's fault:
 *       {@link Verdict#RESEND}, once. Silent again after that: {@link Verdict#WAIT}. Two silent
 *       leaves might mean a query that wedges every leaf it reaches, but an overloaded root, which
 *       reads answers late, looks the same; a benchmark saw such an overload blocklist dozens of
 *       healthy queries, so silence alone never blocklists.</li>
 *   <li>Otherwise the leaves answered only older sub-requests: the canary is queued behind them, as
 *       in an overload, which is nobody's fault: {@link Verdict#WAIT}, up to the query's deadline.</li>
 * </ul>
 * Telling overtaken from queued is what keeps an overloaded cluster from blocklisting healthy
 * queries: under overload every leaf answers, but only what was sent before. A canary that cannot
 * be re-sent (no other replica is ready, or all were tried, say after a busy answer) just waits:
 * without a second opinion nothing is blocklisted; under a benchmark's overload that shortcut had
 * blocklisted an expensive phrase query. (After a re-send for silence, the first leaf gave no
 * opinion, and one overtaking on the second leaf is enough: the re-send happens once.)
 */
public final class CanaryCheck {
    private CanaryCheck() {
    }

    /** The decision. */
    public enum Verdict {
        /** Fail the query and blocklist it. */
        DANGEROUS,
        /** Send the stuck canaries once more, to other replicas. */
        RESEND,
        /** Check again later. */
        WAIT
    }

    /**
     * @param overtaken some canary's leaf answered a sub-request sent after the canary
     * @param silent    every canary's leaf answered nothing since the canary went out
     * @param resent    the canaries were already sent once more
     * @param timedOut  the canary timeout has passed
     */
    public static Verdict decide(boolean overtaken, boolean silent, boolean resent, boolean timedOut) {
        if (overtaken && timedOut) {
            return resent ? Verdict.DANGEROUS : Verdict.RESEND;
        }
        return silent && !resent ? Verdict.RESEND : Verdict.WAIT;
    }
}
