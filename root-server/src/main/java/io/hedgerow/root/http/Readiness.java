package io.hedgerow.root.http;

import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the root should be sent traffic ({@code GET /ready}), as apart from whether it is alive
 * ({@code /health}): it is ready once it has warmed up (its JIT has compiled the request path, so
 * the first users do not pay for it) and while every partition has a replica on a leaf it reaches;
 * it stops being ready as soon as it starts to stop, so a load balancer moves traffic away while
 * the searches in flight finish.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the flags are volatile, the partitions are
 * read from the cluster's thread-safe leaf states at each call.
 */
public final class Readiness {
    /** What {@code /ready} says. */
    public record State(boolean ready, String status, String detail) {
    }

    private final ClusterState cluster;
    private volatile boolean warm;
    private volatile String warmingDetail = "warming up";
    private volatile boolean stopping;

    public Readiness(ClusterState cluster) {
        this.cluster = cluster;
    }

    /** Says what the warm-up is doing, for {@code /ready} while it runs. */
    public void warming(String detail) {
        warmingDetail = detail;
    }

    /** The warm-up is done (or there is none): the root may report ready. */
    public void markWarm() {
        warm = true;
    }

    /** The root is stopping: not ready any more, and searches are refused. */
    public void markStopping() {
        stopping = true;
    }

    public boolean stopping() {
        return stopping;
    }

    public boolean warm() {
        return warm;
    }

    public State state() {
        if (stopping) {
            return new State(false, "stopping", "the root is stopping: it finishes the searches in flight and refuses new ones");
        }
        if (!warm) {
            return new State(false, "warming", warmingDetail);
        }
        List<Integer> missing = unreachablePartitions();
        if (!missing.isEmpty()) {
            return new State(false, "partitions_unavailable", "no leaf this root reaches serves partition"
                    + (missing.size() == 1 ? " " : "s ") + missing);
        }
        return new State(true, "ready", "warmed up, every partition has a replica on a leaf this root reaches");
    }

    /** Partitions none of whose replicas is on a leaf with a ready connection. */
    private List<Integer> unreachablePartitions() {
        List<Integer> missing = new ArrayList<>();
        for (int p = 0; p < cluster.config().partitions(); p++) {
            boolean reachable = false;
            for (int leaf : cluster.assignment().replicasOf(p)) {
                if (cluster.leaf(leaf).state() != LeafStatus.State.DOWN) {
                    reachable = true;
                    break;
                }
            }
            if (!reachable) {
                missing.add(p);
            }
        }
        return missing;
    }
}
