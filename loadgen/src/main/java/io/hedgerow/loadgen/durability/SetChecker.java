package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Jepsen's set checker, with deletes: given a {@link History} and what the final reads found for
 * each id, decides which acknowledged writes were lost and which acknowledged deletes were undone.
 * Pure: no I/O, no clock.
 *
 * <p>Per id, from its add and (at most one) delete:
 * <ul>
 *   <li>add {@code OK}, no delete or a delete that {@code FAIL}ed: must be present; absent is
 *       <b>lost</b>.</li>
 *   <li>delete {@code OK}: must be absent; present is <b>resurrected</b>.</li>
 *   <li>add {@code INFO} (or never completed), or delete {@code INFO}: either state is allowed
 *       (present after an indeterminate add is counted as <i>recovered</i>, for the record).</li>
 *   <li>add {@code FAIL} but present: <i>unexpected</i> (a refusal that took effect), reported.</li>
 * </ul>
 * An id whose expected state is known but whose final read found neither answer is
 * <b>unreadable</b>: not verified, which makes the run invalid too, since nothing was checked for it.
 */
public final class SetChecker {
    private SetChecker() {
    }

    /** One id's operations, as far as the checker cares. */
    private static final class Fate {
        Type add; // null: never invoked; INVOKE: no completion
        Type delete; // null: never invoked
    }

    /**
     * @param history what the clients did
     * @param reads   what the final read of each id found; an id missing here counts as unreadable
     * @param terms   the term-log check
     */
    public static Verdict check(History history, Map<String, Presence> reads, TermLog terms) {
        Map<String, Fate> fates = new LinkedHashMap<>();
        int ok = 0;
        int fail = 0;
        int info = 0;
        int unfinished = 0;
        int acknowledgedAdds = 0;
        int acknowledgedDeletes = 0;
        Map<Integer, Op> open = new HashMap<>();
        for (Op op : history.ops()) {
            if (!op.isWrite()) {
                continue;
            }
            Fate fate = fates.computeIfAbsent(op.id(), id -> new Fate());
            if (op.type() == Type.INVOKE) {
                open.put(op.process(), op);
                if (op.kind() == Kind.ADD) {
                    fate.add = Type.INVOKE;
                } else {
                    fate.delete = Type.INVOKE;
                }
                continue;
            }
            open.remove(op.process());
            switch (op.type()) {
                case OK -> ok++;
                case FAIL -> fail++;
                default -> info++;
            }
            if (op.kind() == Kind.ADD) {
                fate.add = op.type();
                acknowledgedAdds += op.type() == Type.OK ? 1 : 0;
            } else {
                fate.delete = op.type();
                acknowledgedDeletes += op.type() == Type.OK ? 1 : 0;
            }
        }
        unfinished = open.size();
        Set<String> lost = new TreeSet<>();
        Set<String> resurrected = new TreeSet<>();
        Set<String> unreadable = new TreeSet<>();
        Set<String> unexpected = new TreeSet<>();
        int recovered = 0;
        for (Map.Entry<String, Fate> entry : fates.entrySet()) {
            String id = entry.getKey();
            Fate fate = entry.getValue();
            Presence found = reads.getOrDefault(id, Presence.UNREADABLE);
            boolean deleteMayHaveHappened = fate.delete == Type.OK || fate.delete == Type.INFO || fate.delete == Type.INVOKE;
            boolean mustBePresent = fate.add == Type.OK && !deleteMayHaveHappened;
            boolean mustBeAbsent = fate.delete == Type.OK;
            if ((mustBePresent || mustBeAbsent) && found == Presence.UNREADABLE) {
                unreadable.add(id);
            } else if (mustBePresent && found == Presence.ABSENT) {
                lost.add(id);
            } else if (mustBeAbsent && found == Presence.PRESENT) {
                resurrected.add(id);
            } else if (fate.add == Type.FAIL && found == Presence.PRESENT) {
                unexpected.add(id);
            } else if ((fate.add == Type.INFO || fate.add == Type.INVOKE) && found == Presence.PRESENT) {
                recovered++;
            }
        }
        return new Verdict(acknowledgedAdds, acknowledgedDeletes, ok, fail, info, unfinished, List.copyOf(lost),
                List.copyOf(resurrected), List.copyOf(unreadable), List.copyOf(unexpected), recovered, terms);
    }

    /** The ids whose final state the checker needs: every id a client ever tried to add. */
    public static List<String> idsToRead(History history) {
        Set<String> ids = new java.util.LinkedHashSet<>();
        for (Op op : history.ops()) {
            if (op.kind() == Kind.ADD && op.type() == Type.INVOKE) {
                ids.add(op.id());
            }
        }
        return Collections.unmodifiableList(new ArrayList<>(ids));
    }

    /**
     * What the checker decided.
     *
     * @param acknowledgedAdds    adds answered OK
     * @param acknowledgedDeletes deletes answered OK
     * @param ok                  completions OK (adds and deletes)
     * @param fail                completions FAIL
     * @param info                completions INFO (indeterminate)
     * @param unfinished          invocations with no completion in the history (a client stopped mid-call)
     * @param lost                acknowledged adds not readable at the end
     * @param resurrected         acknowledged deletes whose document came back
     * @param unreadable          ids whose expected state could not be verified (no definite read)
     * @param unexpected          refused adds whose document is there
     * @param recovered           indeterminate adds whose document is there (allowed)
     * @param terms               the split-terms check
     */
    public record Verdict(int acknowledgedAdds, int acknowledgedDeletes, int ok, int fail, int info, int unfinished,
            List<String> lost, List<String> resurrected, List<String> unreadable, List<String> unexpected, int recovered,
            TermLog terms) {
        public Verdict {
            lost = List.copyOf(lost);
            resurrected = List.copyOf(resurrected);
            unreadable = List.copyOf(unreadable);
            unexpected = List.copyOf(unexpected);
        }

        /** Acknowledged writes of both kinds: the final line's W. */
        public int acknowledged() {
            return acknowledgedAdds + acknowledgedDeletes;
        }

        /** True when nothing acknowledged was lost or undone, no term split, and every id was verified. */
        public boolean valid() {
            return lost.isEmpty() && resurrected.isEmpty() && terms.splitTerms().isEmpty() && unreadable.isEmpty();
        }

        /** {@code acknowledged W, lost L, resurrected D, split terms T}. */
        public String finalLine() {
            return "acknowledged " + acknowledged() + ", lost " + lost.size() + ", resurrected " + resurrected.size() + ", "
                    + terms.describe();
        }
    }
}
