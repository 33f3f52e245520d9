package io.hedgerow.root.sim;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * A search's fetch phase, modelled: the detached root ends a search with its query phase (ids and
 * scores), so the simulator adds what a real root does next, fetching the hits' stored fields and
 * snippets from the leaves that hold them. A search fetches from {@code fetch-leaves} leaves on
 * average (the whole part, plus one more with the fraction's probability), consecutive leaves from a
 * random one (a crashed one answers nothing, and the root hears of it as soon as of a search); each fetch costs the root a message out and one back ({@code root-cpu} on the
 * shared cores), the network both ways, and the leaf's read and its {@code fetch-service}. The
 * search ends when the last fetch is answered. No hedging, no retry: the real fetch phase's
 * re-sends are a fraction of a percent of its fetches.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread.
 */
final class SimFetch {
    private final SimConfig config;
    private final EventQueue clock;
    private final SplittableRandom random;
    private final SimLeaf[] leaves;
    /** Runs its argument after the root's CPU for one message. */
    private final Consumer<Runnable> onRoot;

    SimFetch(SimConfig config, EventQueue clock, SplittableRandom random, SimLeaf[] leaves, Consumer<Runnable> onRoot) {
        this.config = config;
        this.clock = clock;
        this.random = random;
        this.leaves = leaves;
        this.onRoot = onRoot;
    }

    /** Fetches a search's hits, then runs {@code done}; at once when the config has no fetch phase. */
    void run(Runnable done) {
        int count = (int) config.fetchLeaves + (random.nextDouble() < config.fetchLeaves % 1 ? 1 : 0);
        count = Math.min(count, leaves.length);
        if (count == 0) {
            done.run();
            return;
        }
        int[] left = {count};
        Runnable answered = () -> onRoot.accept(() -> {
            if (--left[0] == 0) {
                done.run();
            }
        });
        int first = random.nextInt(leaves.length);
        for (int i = 0; i < count; i++) {
            SimLeaf leaf = leaves[(first + i) % leaves.length];
            onRoot.accept(() -> clock.after(config.networkNanos,
                    () -> leaf.fetch(() -> clock.after(config.networkNanos, answered))));
        }
    }
}
