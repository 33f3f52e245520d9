package io.hedgerow.root.sim;

import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.hedgerow.root.placement.LoadWindow;
import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementReport;
import io.hedgerow.root.placement.PlacementSettings;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The root's real {@link Placement} in the simulation, as {@link
 * io.hedgerow.root.placement.PlacementService} runs it in a root: four times a simulated second it
 * turns the leaves' connections into events (a leaf lost, a leaf back), ticks the plan and publishes
 * its serving assignment to the searches. A leaf told a new target acknowledges it {@code open-time}
 * later (a real one opens and warms its new partitions first), unless it crashed meanwhile. So after
 * {@code crash-leaves} crash, their partitions are re-replicated across the survivors once the grace
 * has passed, and the run reports how long it took until every partition had its replicas again.
 * With selective replication or rebalancing on, each tick also reads the partitions' load over the
 * load window, as the root's service does, so hot partitions gain copies and hot leaves shed them.
 */
final class SimPlacement {
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final Placement placement;
    private final ClusterState cluster;
    private final EventQueue clock;
    private final long openNanos;
    private final BooleanSupplier running;
    /** Null unless a controller reads the partitions' load. */
    private final LoadWindow window;

    /**
     * @param running whether searches are still to come: the ticks stop when they are not, so the
     *                event queue empties and the run ends
     */
    SimPlacement(ClusterState cluster, PlacementSettings settings, EventQueue clock, long openNanos,
            BooleanSupplier running) {
        this.cluster = cluster;
        this.clock = clock;
        this.openNanos = openNanos;
        this.running = running;
        this.placement = new Placement(cluster.assignment(), cluster.config().replicas(), settings, clock.nanoTime());
        this.window = settings.measuresLoad() ? new LoadWindow(settings.loadWindow().toNanos()) : null;
    }

    void start() {
        clock.after(TICK_NANOS, this::tick);
    }

    /** What the placement did: copies started by reason, moves, failures. */
    PlacementReport report() {
        return placement.report(clock.nanoTime());
    }

    private void tick() {
        long now = clock.nanoTime();
        for (int leaf = 0; leaf < cluster.leaves().size(); leaf++) {
            placement.leafSeen(leaf, cluster.leaf(leaf).readyConnections() > 0, now);
        }
        placement.tick(now, window == null ? null : window.add(cluster.partitionLoad().totals(), now));
        publish(now);
        if (running.getAsBoolean()) {
            clock.after(TICK_NANOS, this::tick);
        }
    }

    private void publish(long now) {
        PlacementSnapshot snapshot = placement.snapshot();
        if (snapshot != cluster.placement()) {
            cluster.publish(snapshot);
        }
        for (int leaf : placement.takeChangedLeaves()) {
            long version = snapshot.targetVersion()[leaf];
            Set<Integer> open = new HashSet<>();
            for (int partition : snapshot.targetOfLeaf()[leaf]) {
                open.add(partition);
            }
            clock.after(openNanos, () -> {
                if (placement.alive(leaf)) {
                    placement.acked(leaf, version, open, clock.nanoTime());
                    publish(clock.nanoTime());
                }
            });
        }
    }
}
