package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.SearchRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The actions one event produced, in order, and every sub-request the search sent (its trace).
 */
final class Outbox {
    private List<Action> actions = new ArrayList<>(4);
    private final List<SubRequest> sent = new ArrayList<>();
    /** Counts each copy as it is chosen, for the choices after it in the same event. */
    private final ChosenLeaves chosen;
    private final int leafCount;

    Outbox(ChosenLeaves chosen, int leafCount) {
        this.chosen = chosen;
        this.leafCount = leafCount;
    }

    void send(SearchCopy copy, SearchRequest wire) {
        sent.add(copy);
        chosen.chose(copy.leaf(), leafCount);
        actions.add(new Action.SendSearch(copy, wire));
    }

    void send(FetchCopy copy, FetchRequest wire) {
        sent.add(copy);
        chosen.chose(copy.leaf(), leafCount);
        actions.add(new Action.SendFetch(copy, wire));
    }

    /** Cancels {@code copy} unless it is done already. */
    void cancel(SubRequest copy) {
        if (!copy.done()) {
            copy.markCancelled();
            actions.add(new Action.Cancel(copy));
        }
    }

    void add(Action action) {
        if (action instanceof Action.SendShadow shadow) {
            chosen.chose(shadow.copy().leaf(), leafCount); // a shadow too is work its leaf owes
        }
        actions.add(action);
    }

    /** Every sub-request sent, in the order sent. */
    List<SubRequest> sent() {
        return sent;
    }

    /** The actions so far, and a fresh list for the next event; the adapter counts what they send. */
    List<Action> drain() {
        chosen.handedOver();
        List<Action> drained = actions;
        actions = new ArrayList<>(4);
        return drained;
    }
}
