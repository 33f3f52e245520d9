package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.durability.DocumentClient.Answer;
import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import io.hedgerow.loadgen.durability.DocumentClient.Route;
import io.hedgerow.loadgen.durability.Op.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The set workload's clients over one or more roots: each write goes to the client's root first
 * ({@link RootChoice}) and, when that root takes no connection, gives no answer or answers 503, to
 * the next one, each root at most once.
 *
 * <p>What the write then counts as keeps the set checker sound. When every earlier attempt was
 * never sent (no connection), the last root's answer is the write's own. When an earlier attempt
 * was sent and got no answer or a 503, it may still be applied later (a paused root resumes, a cut
 * one is restored), whatever the next root answered: the write is {@link Type#INFO}
 * (indeterminate), as a timed-out write is, so an acknowledgement from the second root never makes
 * a delete the first may still undo (or an add it may still apply) count as acknowledged or refused.
 *
 * <p>Reads take the first answer that says present or absent from any root, in the same order.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe when its {@link Documents} are (one per root,
 * shared by every client); the choice of roots is {@link RootChoice}'s.
 */
public final class FailoverClient {
    private final List<Documents> roots;
    private final RootChoice choice;

    public FailoverClient(List<? extends Documents> roots, RootChoice choice) {
        if (roots.isEmpty() || roots.size() != choice.roots()) {
            throw new IllegalArgumentException("roots: " + roots.size() + " (expected: >= 1, as many as the choice's "
                    + choice.roots() + ")");
        }
        this.roots = List.copyOf(roots);
        this.choice = choice;
    }

    /** One root, no failover: exactly that root's answers. */
    public static FailoverClient of(Documents root) {
        return new FailoverClient(List.of(root), new RootChoice(1, () -> 0L, java.time.Duration.ZERO));
    }

    public int roots() {
        return roots.size();
    }

    public Answer add(int client, String id, String body) {
        return write(client, root -> root.add(id, body));
    }

    public Answer delete(int client, String id) {
        return write(client, root -> root.delete(id));
    }

    /** Present or absent as the first root that can tell says; unreadable when none could. */
    public Presence read(int client, String id) {
        for (int root : choice.order(client)) {
            Presence presence = roots.get(root).read(id);
            if (presence != Presence.UNREADABLE) {
                return presence;
            }
        }
        return Presence.UNREADABLE;
    }

    private Answer write(int client, Function<Documents, Answer> call) {
        List<String> attempts = new ArrayList<>();
        boolean maybeApplied = false;
        Answer last = null;
        for (int root : choice.order(client)) {
            last = call.apply(roots.get(root));
            if (roots.size() > 1) {
                attempts.add("root " + root + ": " + last.detail());
            }
            if (last.route() == Route.NOT_SENT || last.route() == Route.NO_ANSWER) {
                choice.failed(root);
            } else {
                choice.answered(root);
            }
            if (last.route() == Route.FINAL) {
                break;
            }
            maybeApplied |= last.route() != Route.NOT_SENT;
        }
        return outcome(last, maybeApplied, attempts);
    }

    /**
     * The write's outcome from its last attempt's answer: that answer itself, unless an earlier
     * attempt may have been applied ({@code maybeApplied}), then {@link Type#INFO}.
     */
    static Answer outcome(Answer last, boolean maybeApplied, List<String> attempts) {
        String detail = attempts.size() <= 1 ? last.detail() : String.join("; then ", attempts);
        if (maybeApplied && last.type() != Type.INFO) {
            return new Answer(Type.INFO, "indeterminate (an earlier root got no answer or answered 503): " + detail,
                    Route.FINAL);
        }
        return new Answer(last.type(), detail, last.route());
    }
}
