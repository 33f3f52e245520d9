package io.hedgerow.loadgen.durability;

import java.io.IOException;
import java.util.Random;

/**
 * Something that breaks the cluster and mends it, as Jepsen's nemeses do: {@link #strike} starts
 * one fault it chooses with the random source it is given (so a seed repeats the choices), and
 * {@link #heal} ends every fault it has in effect. A {@link NemesisLoop} alternates the two.
 *
 * <p>Today: {@link LeafNemesis} (kills and pauses of primaries and replicas), {@link LinkNemesis}
 * (cuts one host's network link, for a cluster across network namespaces), {@link PartitionNemesis}
 * (splits those hosts into two groups that cannot reach each other), {@link RootNemesis} (kills the
 * whole local cluster and starts it again on its data), {@link RootProcessNemesis} (kills or pauses
 * one of several roots that run apart from their leaves) and {@link ZooKeeperNemesis} (kills and
 * pauses of the embedded ZooKeeper).
 *
 * <p><b>Assumptions and guarantees.</b> Called from one thread (the loop's), never concurrently;
 * {@link #heal} may be called with no fault in effect (it does nothing then).
 */
public interface Nemesis {
    /** Short name, for the history and the report ({@code leaf}, {@code root}). */
    String name();

    /**
     * Starts one fault.
     *
     * @return what it did, e.g. {@code kill primary of partition 3: leaf 2 (pid 4242)}
     * @throws IOException when it could not (recorded, and the run goes on without it)
     */
    String strike(Random random) throws IOException;

    /**
     * Ends every fault in effect: resumes what is paused, restarts what is dead.
     *
     * @return what it did; empty when there was nothing to heal
     * @throws IOException when a fault could not be undone
     */
    String heal() throws IOException;
}
