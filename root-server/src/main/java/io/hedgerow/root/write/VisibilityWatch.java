package io.hedgerow.root.write;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * When searches of one partition see its acknowledged writes: asks every in-sync replica the seq
 * its searches see (its visible seq), keeps the highest seq every one of them has confirmed, and
 * completes the writes waiting for that (refresh=wait_for). Apart from the ordering and
 * replication of writes ({@link PartitionWriter}), which only tells it the acknowledged seq.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: its state is guarded by this object's monitor,
 * taken before the {@link ReplicaSet}'s (never the other way round) and never while a waiter is
 * completed (what waits on one, the answer to a write, runs outside it). At most one question is in
 * flight per partition. A waiter completes once, when its seq is confirmed or after the write
 * timeout, whichever comes first.
 */
final class VisibilityWatch {
    private final ReplicaSet replicas;
    private final WriteSettings settings;
    /** The highest seq every in-sync replica is known to show searches. */
    private long confirmedVisibleSeq;
    private boolean polling;
    /** Writes waiting for searches to see them (refresh=wait_for): each completes once its seq is visible. */
    private final List<Waiter> waiters = new ArrayList<>();

    private record Waiter(long seq, CompletableFuture<Void> visible) {
    }

    VisibilityWatch(ReplicaSet replicas, WriteSettings settings) {
        this.replicas = replicas;
        this.settings = settings;
    }

    /**
     * Whether searches may still miss a write up to {@code ackedSeq}: true until every in-sync
     * replica has answered that its searches see it (asked here, at most one question in flight).
     */
    boolean poll(long ackedSeq) {
        List<Replica> targets;
        synchronized (this) {
            if (ackedSeq <= confirmedVisibleSeq) {
                return false;
            }
            if (polling) {
                return true;
            }
            polling = true;
            targets = replicas.inSyncNow();
        }
        List<CompletableFuture<Long>> visible = new ArrayList<>();
        for (Replica replica : targets) {
            visible.add(replica.link.send(ReplicaCatchUp.readLog(replicas.request(settings.retainedLogOps()),
                    Long.MAX_VALUE), settings.timeout()).thenApply(response ->
                    response.getStatus() == Status.OK ? response.getVisibleSeq() : -1L));
        }
        CompletableFuture.allOf(visible.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
            List<Waiter> seen = new ArrayList<>();
            synchronized (this) {
                polling = false;
                if (failure == null && visible.stream().allMatch(seq -> seq.join() >= ackedSeq)) {
                    confirmedVisibleSeq = Math.max(confirmedVisibleSeq, ackedSeq);
                    for (Waiter waiter : waiters) {
                        if (waiter.seq() <= confirmedVisibleSeq) {
                            seen.add(waiter);
                        }
                    }
                    waiters.removeAll(seen);
                }
            }
            // Outside the monitor: what waits on them (the answer to a write) runs here.
            seen.forEach(waiter -> waiter.visible().complete(null));
        });
        return true;
    }

    /**
     * Completes once every in-sync replica has answered that its searches see {@code seq} (its
     * scheduled refresh made it visible; refresh=wait_for), or after the write timeout, whichever
     * comes first: a replica that stops answering the polls never holds the answer longer.
     */
    CompletableFuture<Void> whenVisible(long seq) {
        CompletableFuture<Void> visible = new CompletableFuture<>();
        synchronized (this) {
            if (seq <= confirmedVisibleSeq) {
                return CompletableFuture.completedFuture(null);
            }
            waiters.add(new Waiter(seq, visible));
        }
        return visible.completeOnTimeout(null, settings.timeout().toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((ignored, failure) -> {
                    synchronized (this) {
                        waiters.removeIf(waiter -> waiter.visible() == visible);
                    }
                });
    }
}
