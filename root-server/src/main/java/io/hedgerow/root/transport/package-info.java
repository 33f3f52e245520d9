/**
 * The root's Netty side towards its leaves: one connection per event loop and leaf ({@link
 * io.hedgerow.root.transport.LeafConnection}, with its handshake, its calls waiting for answers,
 * cancels and reconnects), the leaves as one loop sees them ({@link
 * io.hedgerow.root.transport.LoopLeafView}), batch admission on the wire, and fault injections sent
 * to leaves.
 *
 * <p>It carries what the search decided and reports what the leaves did; it decides nothing about a
 * search. Must not depend on {@code io.hedgerow.root.fanout}: answers go up through {@link
 * io.hedgerow.root.transport.QueryCallListener}.
 */
package io.hedgerow.root.transport;
