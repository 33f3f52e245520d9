package io.hedgerow.root.search;

import io.hedgerow.api.LeafTrace;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.Probation;
import java.util.ArrayList;
import java.util.List;

/** The leaves as a search's replica choice sees them, for its explain trace. */
final class LeafTraces {
    private LeafTraces() {
    }

    static List<LeafTrace> of(RunContext ctx) {
        DispatchPolicy.ReplicaView view = ctx.leaves;
        int leaves = ctx.shared.cluster().assignment().leaves();
        List<LeafTrace> traces = new ArrayList<>(leaves);
        for (int leaf = 0; leaf < leaves; leaf++) {
            Probation.State probation = ctx.shared.cluster().probation().state(leaf);
            String state = !view.isReady(leaf) ? "not_ready" : view.stalled(leaf) ? "stalled"
                    : probation.onProbation() ? "probation" : "in_rotation";
            LeafLoad load = view.load(leaf);
            boolean known = load != null && load.samples() > 0;
            traces.add(new LeafTrace(ctx.leafName(leaf), state, probation.onProbation() ? probation.reason() : null,
                    view.outstanding(leaf), ctx.shared.policy().rank(leaf, view),
                    known ? load.responseNanos() / 1e6 : null, known ? load.serviceNanos() / 1e6 : null,
                    known ? load.queueLength() : null));
        }
        return traces;
    }
}
