package io.hedgerow.root.placement.shared;

import io.hedgerow.root.placement.PlacementPlan;

/**
 * A placement plan as read from or written to the coordination store.
 *
 * @param leader  the participant name of the root that wrote it
 * @param plan    the plan in this root's leaf slots; null when it does not fit them ({@code misfit})
 * @param version the znode's version it was read or written at (the compare-and-set's expectation)
 * @param misfit  why the plan does not fit this root (it names more leaves new to this root than it has
 *                vacant slots); null when it fits
 */
record StoredPlan(String leader, PlacementPlan plan, int version, String misfit) {
    StoredPlan(String leader, PlacementPlan plan, int version) {
        this(leader, plan, version, null);
    }
}
