package io.hedgerow.root.cluster;

import io.hedgerow.coordination.NodeId;
import java.util.List;
import java.util.Objects;

/**
 * The leaves' membership in ZooKeeper as one root last heard it ({@code --zk}), immutable: for each
 * leaf slot (its leaf matched by the address its znode holds; a vacant slot reads not registered) whether it
 * is registered and since when; the registered leaves that are not configured; and the service time
 * the leaves published, per partition, summed over the leaves ({@link LeafLoadSums}). Searches never
 * read it; the placement reads it every tick and {@code /cluster} shows it.
 *
 * @param initialized  whether the cache held the leaves registered when it started (before: every leaf
 *                     is {@link State#NOT_REGISTERED})
 * @param leaves       by leaf slot
 * @param unconfigured registered leaves whose address no slot holds and that found no vacant one
 * @param loadTotals   by partition: nanoseconds of service the leaves published since this root watched,
 *                     cumulative (never decreasing)
 * @param loadPublished whether any leaf published load yet: until then the placement reads the root's own
 */
public record MembershipView(boolean initialized, List<Member> leaves, List<Stranger> unconfigured,
        long[] loadTotals, boolean loadPublished) {

    /** A configured leaf's membership. */
    public enum State {
        /** Not seen registered by this root (a leaf without {@code --zk}, or not started yet). */
        NOT_REGISTERED,
        /** Its znode is there. */
        REGISTERED,
        /** It was registered, and its znode vanished: its session ended or expired, or it deregistered. */
        GONE
    }

    /**
     * @param node        the node id it registered under (the latest), or null when never seen
     * @param sinceMillis when it entered its state, epoch milliseconds; -1 for {@link State#NOT_REGISTERED}
     */
    public record Member(State state, NodeId node, long sinceMillis) {
        public Member {
            Objects.requireNonNull(state, "state");
        }

        static final Member UNSEEN = new Member(State.NOT_REGISTERED, null, -1);
    }

    /** A registered leaf that has no slot here: none holds its address, and none was vacant. */
    public record Stranger(NodeId node, String address, long sinceMillis) {
    }

    public MembershipView {
        leaves = List.copyOf(leaves);
        unconfigured = List.copyOf(unconfigured);
        loadTotals = loadTotals.clone();
    }

    /** Nothing heard yet, for {@code leaves} configured leaves and {@code partitions} partitions. */
    public static MembershipView empty(int leaves, int partitions) {
        return new MembershipView(false, java.util.Collections.nCopies(leaves, Member.UNSEEN), List.of(),
                new long[partitions], false);
    }

    /**
     * Whether membership says {@code leaf} is down: it was registered and its znode is gone. A leaf never
     * seen registered is not down by membership (it may run without {@code --zk}): its connections decide.
     */
    public boolean down(int leaf) {
        return leaves.get(leaf).state() == State.GONE;
    }

    @Override
    public long[] loadTotals() {
        return loadTotals.clone();
    }
}
