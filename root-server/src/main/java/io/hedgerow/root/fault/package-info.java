/**
 * Fault injection in the leaves through the root, for tests and demos ({@link
 * io.hedgerow.root.fault.LeafFaults}): an admin facility of the root, not part of the search API,
 * and described in the leaves' own types ({@code io.hedgerow.leaf.fault.InjectedDelay}, {@code
 * InjectedStall}).
 */
package io.hedgerow.root.fault;
