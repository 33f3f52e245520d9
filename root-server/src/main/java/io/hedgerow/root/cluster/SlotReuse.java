package io.hedgerow.root.cluster;

import java.time.Duration;
import java.util.List;

/**
 * Which filled leaf slot a leaf that finds none vacant may take over ({@link ClusterState#fillSlot(
 * LeafAddress, long, SlotReuse)}): a slot keeps its address after its leaf leaves, so that the same leaf
 * restarted at that address takes it back with its copies, but a root with {@code --leaf-slots N} would
 * then turn every leaf away once N distinct addresses had joined (a leaf restarted on another port, a
 * host replaced). A slot is reused only when the root holds nothing of its leaf it still needs:
 * <ul>
 *   <li>membership says its leaf left ({@link MembershipView.State#GONE}) at least {@code graceMillis}
 *       ago, and it did not register again since; and that leaf is the slot's present one (it left after
 *       the slot was last filled: a view published before a reuse still shows the old leaf gone);</li>
 *   <li>no connection to it is ready (a leaf without its znode but still answering is not gone);</li>
 *   <li>it holds no copy: none in the placement (serving, opening or retiring) and no replica of the
 *       write path names it.</li>
 * </ul>
 * Of those, the one gone longest. Pure: the facts and the time come in, a slot comes out.
 *
 * @param graceMillis how long after its leaf left a slot is kept for that leaf to come back
 */
public record SlotReuse(long graceMillis) {
    /** A minute: a restart, even a slow one, is back well within it. */
    public static final SlotReuse DEFAULT = of(Duration.ofMinutes(1));

    public SlotReuse {
        if (graceMillis < 0) {
            throw new IllegalArgumentException("graceMillis: " + graceMillis + " (expected: >= 0)");
        }
    }

    public static SlotReuse of(Duration grace) {
        return new SlotReuse(grace.toMillis());
    }

    /**
     * One filled slot as the root knows it.
     *
     * @param member      its leaf's membership
     * @param connected   whether a connection to it is ready
     * @param holdsCopies whether the placement or the write path has a copy on it
     * @param filledAtMillis when its present leaf took it at run time (membership's clock); {@link Long#MIN_VALUE}
     *                    when it was filled without a time (listed, or named by the stored plan)
     */
    public record Filled(int slot, MembershipView.Member member, boolean connected, boolean holdsCopies,
            long filledAtMillis) {
        /** Whether membership's word is of the leaf that holds the slot now, and says it left. */
        boolean presentLeafGone() {
            return member.state() == MembershipView.State.GONE && member.sinceMillis() >= filledAtMillis;
        }
    }

    /** The slot to reuse at {@code nowMillis} (epoch milliseconds, membership's clock), or -1 when none may be. */
    public int choose(List<Filled> filled, long nowMillis) {
        int chosen = -1;
        long goneSince = Long.MAX_VALUE;
        for (Filled slot : filled) {
            MembershipView.Member member = slot.member();
            if (slot.presentLeafGone() && nowMillis - member.sinceMillis() >= graceMillis
                    && !slot.connected() && !slot.holdsCopies() && member.sinceMillis() < goneSince) {
                chosen = slot.slot();
                goneSince = member.sinceMillis();
            }
        }
        return chosen;
    }

    /** Why no slot may be reused, for the log line and {@code /cluster} of a leaf turned away. */
    public String whyNone(List<Filled> filled, long nowMillis) {
        int held = 0;
        int recent = 0;
        int present = 0;
        for (Filled slot : filled) {
            MembershipView.Member member = slot.member();
            if (!slot.presentLeafGone() || slot.connected()) {
                present++;
            } else if (slot.holdsCopies()) {
                held++;
            } else if (nowMillis - member.sinceMillis() < graceMillis) {
                recent++;
            }
        }
        return present + " with their leaf present, " + held + " whose leaf left holding copies the placement or"
                + " the write path still names, " + recent + " whose leaf left less than " + graceMillis
                + " ms ago (kept for its return)";
    }
}
