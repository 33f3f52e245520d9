package io.hedgerow.coordination;

import java.io.IOException;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * Chooses the one root that runs placement, with Curator's {@link LeaderLatch} on
 * {@link ClusterPaths#placementLeader}: every root starts one; the oldest live participant leads;
 * when it closes or its session ends the next takes over.
 *
 * <p>Leadership is advisory. A leader that was paused or cut off may still believe it leads for a
 * moment after another was chosen (until its connection is suspended, which calls
 * {@link LeadershipListener#lost}). What keeps two leaders from doing harm is not the latch but the
 * compare-and-set on every partition state ({@link ClusterStore}): a decision made on a state someone
 * else has since changed is not written.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. The listener hears {@code gained} and {@code lost}
 * alternately; closing a leader calls {@code lost}.
 */
public final class PlacementLeader implements AutoCloseable {
    private final LeaderLatch latch;
    private final String participantId;

    /** A participant named {@code participantId} (e.g. the root's address), not yet started. */
    public PlacementLeader(CoordinationClient client, String participantId, LeadershipListener listener) {
        this.participantId = participantId;
        this.latch = new LeaderLatch(client.curator(), client.paths().placementLeader(), participantId,
                LeaderLatch.CloseMode.NOTIFY_LEADER);
        client.attach(this);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                listener.gained();
            }

            @Override
            public void notLeader() {
                listener.lost();
            }
        });
    }

    public void start() throws CoordinationException {
        try {
            latch.start();
        } catch (Exception e) {
            throw CoordinationException.failed("starting the placement leader latch of " + participantId, e);
        }
    }

    /** Whether this participant leads now, as far as it knows (see the class comment). */
    public boolean hasLeadership() {
        return latch.hasLeadership();
    }

    public String participantId() {
        return participantId;
    }

    @Override
    public void close() {
        try {
            latch.close();
        } catch (IOException e) {
            throw new IllegalStateException("closing the placement leader latch of " + participantId, e);
        } catch (IllegalStateException e) {
            // never started, or closed already: nothing to give up
        }
    }
}
