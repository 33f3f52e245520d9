package io.hedgerow.root.placement;

/**
 * Who decides placement among the roots that share a plan in the coordination store, and where this
 * root's plan came from, for {@code /cluster}.
 *
 * @param self          this root's name as a participant
 * @param leads         whether this root runs the placement now
 * @param leader        the root that wrote the stored plan last (the leader, or the last one), or null
 *                      while none is stored
 * @param source        where the plan searches and writes route by came from, in a sentence
 * @param storedVersion the version of the stored plan's znode this root last wrote or read, -1 for none
 */
public record PlacementLeadership(String self, boolean leads, String leader, String source, long storedVersion) {
}
