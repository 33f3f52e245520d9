/**
 * One search at the root as a pure state machine: {@link io.hedgerow.root.search.SearchRun} takes
 * {@link io.hedgerow.root.search.Event}s and returns {@link io.hedgerow.root.search.Action}s, through
 * its phases (canary, query, fetch), its per-partition and per-hit slots, hedging, shadows, the
 * replica choice ({@link io.hedgerow.root.search.DispatchPolicy}) and the result it builds.
 *
 * <p>Must not depend on Netty, on {@code io.hedgerow.root.transport} or {@code
 * io.hedgerow.root.fanout}, nor read a clock of its own: every time comes in with an event, on the
 * root's injected ticker, so tests and the simulator drive it exactly.
 */
package io.hedgerow.root.search;
