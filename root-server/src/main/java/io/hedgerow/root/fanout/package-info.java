/**
 * The adapters that run a {@link io.hedgerow.root.search.SearchRun} against a world: {@link
 * io.hedgerow.root.fanout.FanOut} and its {@code Gatherer} over real connections and event-loop
 * timers, and {@link io.hedgerow.root.fanout.DetachedRoot}, the same runs with the leaves, network
 * and clock supplied by the simulator.
 *
 * <p>Adapters execute the run's actions and turn what happens into events; they make no search
 * decision of their own.
 */
package io.hedgerow.root.fanout;
