package io.hedgerow.root.cluster;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.Membership;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The leaves a root without {@code --leaves} starts with ({@code root --zk} alone): the addresses of
 * the leaves registered in ZooKeeper, once at least as many as a partition has copies are there (fewer
 * cannot hold the first assignment). They fill the first leaf slots; leaves that register later take
 * the others at run time ({@link LeafMembers}).
 */
public final class RegisteredLeaves {
    private static final long POLL_MILLIS = 100;

    private RegisteredLeaves() {
    }

    /**
     * Waits for {@code atLeast} leaves to be registered, {@code patience} at most.
     *
     * @return their addresses, in the order of their node ids (every root that starts then sees the same)
     * @throws CoordinationException when ZooKeeper cannot be reached, or fewer leaves registered in time
     */
    public static List<String> await(CoordinationSettings settings, int atLeast, Duration patience)
            throws CoordinationException, InterruptedException {
        if (atLeast < 1) {
            throw new IllegalArgumentException("atLeast: " + atLeast + " (expected: >= 1)");
        }
        long deadline = System.nanoTime() + patience.toNanos();
        try (CoordinationClient client = CoordinationClient.connect(settings);
                Membership membership = new Membership(client)) {
            membership.start();
            while (true) {
                Set<String> addresses = new LinkedHashSet<>();
                for (String address : membership.liveLeaves().values()) {
                    try {
                        addresses.add(LeafAddress.parse(address).toString());
                    } catch (IllegalArgumentException e) {
                        // a znode naming no host:port: not a leaf this root can dial
                    }
                }
                if (addresses.size() >= atLeast) {
                    return new ArrayList<>(addresses);
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new CoordinationException("leaves registered in ZooKeeper: " + addresses.size() + " after "
                            + patience.toSeconds() + " s (expected: at least " + atLeast + ", a partition's copies;"
                            + " start leaves with --zk, or name them with --leaves)");
                }
                Thread.sleep(POLL_MILLIS);
            }
        }
    }
}
