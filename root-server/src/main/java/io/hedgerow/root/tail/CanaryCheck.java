package io.hedgerow.root.tail;

/**
 * What to do about a query's canaries, from what their leaves did. Pure: the search run gathers
 * the facts, this decides. The rule throughout is that <em>one leaf is never evidence against a
 * query</em>: a leaf may crash, restart, stall or be overloaded for reasons of its own, so a query
 * is dangerous only when its canary came to grief on two different leaves. A second opinion goes
 * to another leaf (the run chooses one whose partitions do not share a replica with the first
 * leaf's, so a real query of death never takes both copies of one partition), and the first copy
 * is kept: if it was merely slow, its answer still counts.
 *
 * <p>When a canary's connection is lost ({@link #lost}): the leaf crashed, restarted or was
 * deployed while the canary was out. Dangerous only when that happened on two different leaves;
 * otherwise a second opinion, unless another copy is already out on another leaf (it is one). A
 * benchmark killed one leaf under load and saw two healthy queries blocklisted for ten minutes
 * when the first loss alone decided.
 *
 * <p>When canaries are still out at a check ({@link #check}):
 * <ul>
 *   <li>A leaf finished sub-requests sent <em>after</em> the canary (of its class or a lower one),
 *       past the canary timeout ({@code overtaken}): later work overtook it, so the leaf works and
 *       this canary does not. Overtaken on two leaves: {@link Verdict#DANGEROUS}, it hangs wherever
 *       it goes. Overtaken on the only leaf it is on: {@link Verdict#SECOND_OPINION}. One leaf
 *       alone could be in distress (a stall that holds running searches, a GC storm), which a
 *       benchmark saw blocklist a healthy query.</li>
 *   <li>Every leaf holding a canary answered nothing at all since ({@code silent}): the leaf has
 *       gone silent (a stall, a GC pause, a dead machine), which is not the query's fault: a
 *       {@link Verdict#SECOND_OPINION} while it is on one leaf, then {@link Verdict#WAIT}. Silence
 *       never blocklists: an overloaded root, which reads answers late, looks the same, and a
 *       benchmark saw such an overload blocklist dozens of healthy queries.</li>
 *   <li>Otherwise the leaves answered only older sub-requests: the canary is queued behind them, as
 *       in an overload, which is nobody's fault: {@link Verdict#WAIT}, up to the query's deadline.</li>
 * </ul>
 * Telling overtaken from queued is what keeps an overloaded cluster from blocklisting healthy
 * queries: under overload every leaf answers, but only what was sent before. A canary that cannot
 * get a second opinion (no other leaf is ready) just waits: without a second opinion nothing is
 * blocklisted.
 */
public final class CanaryCheck {
    private CanaryCheck() {
    }

    /** The decision. */
    public enum Verdict {
        /** Fail the query and blocklist it. */
        DANGEROUS,
        /** Send the canary to another leaf as well, keeping the copies out. */
        SECOND_OPINION,
        /** Check again later. */
        WAIT
    }

    /**
     * A check of the canaries still out.
     *
     * @param leavesOut       distinct leaves holding a canary copy still out
     * @param leavesOvertaken of those, leaves whose copy is past the canary timeout (once the timeout
     *                        has been learnt) and was overtaken by later work
     * @param silent          every leaf holding a copy answered nothing since its copy went out
     */
    public static Verdict check(int leavesOut, int leavesOvertaken, boolean silent) {
        if (leavesOvertaken >= 2) {
            return Verdict.DANGEROUS;
        }
        if (leavesOut < 2 && (leavesOvertaken == 1 || silent)) {
            return Verdict.SECOND_OPINION;
        }
        return Verdict.WAIT;
    }

    /**
     * A canary copy's connection was lost while it was out.
     *
     * @param leavesLost distinct leaves on which a canary copy of this query was lost, this one included
     * @param leavesOut  distinct leaves still holding a canary copy of this query
     */
    public static Verdict lost(int leavesLost, int leavesOut) {
        if (leavesLost >= 2) {
            return Verdict.DANGEROUS;
        }
        return leavesOut > 0 ? Verdict.WAIT : Verdict.SECOND_OPINION;
    }
}
