package io.hedgerow.root.placement.shared;

import io.hedgerow.root.placement.PlacementPlan;

/**
 * A placement plan as read from or written to the coordination store.
 *
 * @param leader  the participant name of the root that wrote it
 * @param plan    the plan
 * @param version the znode's version it was read or written at (the compare-and-set's expectation)
 */
record StoredPlan(String leader, PlacementPlan plan, int version) {
}
