package io.hedgerow.leaf.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.ReplicaTarget;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * A primary's side of primary-led replication (PacificA, as Elasticsearch's
 * {@code ReplicationOperation}): the copies of each numbered batch to the partition's replicas, and
 * the replicas it <em>tracks</em> (Elasticsearch's word): those whose catch-up finished through it
 * ({@link #finish}), to which every batch numbered afterwards is copied whichever root sent it, besides
 * the replicas the request names. A tracked replica that fails a copy is no longer tracked; a new
 * term (this leaf promoted again, or a primary of a newer term) starts with none tracked. The tracked
 * set is kept durably ({@link TrackedFiles}) when it grows, so a primary restarted within its term
 * keeps copying to a replica a root joined through it.
 *
 * <p><b>Order.</b> The caller queues a batch's copies while it holds the partition's write lock, right
 * after numbering it and before logging it ({@link LivePartition.Numbered}), so the copies to each
 * replica are queued in seq order; each replica's copies then go out one at a time, the next once the
 * previous one is answered (a replica runs writes on a pool, so two in flight could apply out of
 * order and leave a gap). Each copy's timeout counts from when it was queued, so a paused replica makes every copy queued
 * to it fail within one timeout of its queueing, never one timeout per copy ahead of it.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: each partition's state is guarded by its own
 * monitor; {@link #copy} and {@link #finish} are called under the partition's write lock and never
 * block (answers complete on the links' event loops). Every returned future completes, given that
 * {@link PeerWrites#send} answers every request.
 */
public final class ReplicationGroup {
    private final Ticker ticker;
    private final TrackedFiles files;
    private volatile PeerWrites peers = PeerWrites.NONE;
    private final Map<Integer, Partition> partitions = new ConcurrentHashMap<>();

    /** A group that keeps its tracked replicas in memory only (tests). */
    public ReplicationGroup(Ticker ticker) {
        this(ticker, TrackedFiles.NONE);
    }

    /** @param files where each partition's tracked replicas are kept, so a restarted primary keeps tracking them */
    ReplicationGroup(Ticker ticker, TrackedFiles files) {
        this.ticker = ticker;
        this.files = files;
    }

    void links(PeerWrites links) {
        this.peers = links;
    }

    /** One partition's tracked replicas and the tail of each replica's queue of copies. */
    private static final class Partition {
        long term;
        /** The tracked replicas were read from {@link TrackedFiles} (once, at first use). */
        boolean loaded;
        /** By node id; each entry its own object, so a failure untracks only the entry whose copy failed. */
        final Map<String, Tracked> tracked = new LinkedHashMap<>();
        /** By address: completes once the last copy queued to that replica is answered. */
        final Map<String, CompletableFuture<Void>> tails = new HashMap<>();
    }

    /** A replica tracked since one {@link #finish}; compared by identity. */
    private static final class Tracked {
        final ReplicaTarget target;

        Tracked(ReplicaTarget target) {
            this.target = target;
        }
    }

    /**
     * The partition's group in {@code term}: at first use with the replicas tracked in that term before
     * a restart ({@link TrackedFiles}); call it before numbering a batch, so a file that cannot be read
     * fails the request before anything is logged.
     */
    void open(int partition, long term) throws IOException {
        group(partition, term);
    }

    private Partition group(int partition, long term) throws IOException {
        Partition group = partitions.computeIfAbsent(partition, p -> new Partition());
        synchronized (group) {
            if (!group.loaded) {
                group.term = term;
                for (ReplicaTarget target : files.load(partition, term)) {
                    group.tracked.put(target.getNode(), new Tracked(target));
                }
                group.loaded = true;
            }
            if (term > group.term) {
                // A newer term: whatever an older one tracked, the roots' requests name the in-sync set now.
                group.term = term;
                group.tracked.clear();
            }
        }
        return group;
    }

    /** This copy is a replica of {@code partition} now (it took a primary's copy): it tracks nothing. */
    void replicaOf(int partition) {
        Partition group = partitions.get(partition);
        if (group != null) {
            synchronized (group) {
                group.tracked.clear();
            }
        }
    }

    /** The nodes the primary tracks for {@code partition} now. */
    public List<String> tracked(int partition) {
        Partition group = partitions.get(partition);
        if (group == null) {
            return List.of();
        }
        synchronized (group) {
            return List.copyOf(group.tracked.keySet());
        }
    }

    /**
     * Queues the numbered batch {@code copy} (primary=false) to {@code targets} and to every tracked
     * replica; called under the partition's write lock, right after the batch was numbered (the
     * primary logs and syncs it meanwhile, and answers only once both are done).
     *
     * @return completes with the replicas that did not take it, once each answered or timed out
     */
    CompletableFuture<List<ReplicaFailure>> copy(int partition, long term, List<ReplicaTarget> targets,
            WriteRequest copy, long timeoutNanos) throws IOException {
        Partition group = group(partition, term);
        long deadline = ticker.nanoTime() + timeoutNanos;
        List<CompletableFuture<ReplicaFailure>> copies = new ArrayList<>();
        synchronized (group) {
            Map<String, Boolean> seen = new HashMap<>();
            for (ReplicaTarget target : targets) {
                if (seen.putIfAbsent(target.getAddress(), true) == null) {
                    copies.add(copyTo(group, target, group.tracked.get(target.getNode()), copy, deadline, false));
                }
            }
            for (Tracked entry : group.tracked.values()) {
                if (seen.putIfAbsent(entry.target.getAddress(), true) == null) {
                    copies.add(copyTo(group, entry.target, entry, copy, deadline, true));
                }
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenApply(done -> copies.stream()
                .map(CompletableFuture::join).filter(failure -> failure != null).toList());
    }

    /**
     * Finishes a replica's catch-up: queues {@code log} (the primary's ops above the replica's last
     * seq, as copies) to it and tracks it from now on, so every batch numbered afterwards reaches it
     * too; called under the partition's write lock.
     *
     * @return completes with null once the replica holds the whole log, else with its failure (it is
     *         then no longer tracked)
     */
    CompletableFuture<ReplicaFailure> finish(int partition, long term, ReplicaTarget target,
            List<WriteRequest> log, long timeoutNanos) throws IOException {
        Partition group = group(partition, term);
        long deadline = ticker.nanoTime() + timeoutNanos;
        List<CompletableFuture<ReplicaFailure>> copies = new ArrayList<>();
        synchronized (group) {
            Tracked entry = new Tracked(target);
            Tracked before = group.tracked.put(target.getNode(), entry);
            try {
                // Durable before the root may join it: a primary restarted in this term still copies to it.
                files.store(partition, group.term, group.tracked.values().stream().map(t -> t.target).toList());
            } catch (IOException e) {
                if (before == null) {
                    group.tracked.remove(target.getNode(), entry);
                } else {
                    group.tracked.put(target.getNode(), before);
                }
                throw e;
            }
            for (WriteRequest chunk : log) {
                copies.add(copyTo(group, target, entry, chunk, deadline, true));
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenApply(done -> copies.stream()
                .map(CompletableFuture::join).filter(failure -> failure != null).findFirst().orElse(null));
    }

    /**
     * Queues one copy behind the ones queued to the same replica; the caller holds the group's monitor.
     *
     * @param entry the replica's tracking, which a failure ends; null: not tracked
     */
    private CompletableFuture<ReplicaFailure> copyTo(Partition group, ReplicaTarget target, Tracked entry,
            WriteRequest copy, long deadline, boolean tracked) {
        String address = target.getAddress();
        CompletableFuture<Void> before = group.tails.getOrDefault(address, CompletableFuture.completedFuture(null));
        CompletableFuture<WriteResponse> answer = before.thenCompose(ignored -> {
            long left = deadline - ticker.nanoTime();
            if (left <= 0) {
                return CompletableFuture.failedFuture(new TimeoutException("leaf " + address + " did not answer the"
                        + " copies queued before this one within the copy timeout"));
            }
            return peers.send(address, copy, left);
        });
        group.tails.put(address, answer.handle((response, failure) -> null));
        return answer.handle((response, failure) -> {
            ReplicaFailure failed = failure(target, response, failure, tracked);
            if (failed != null && entry != null) {
                synchronized (group) {
                    group.tracked.remove(target.getNode(), entry);
                }
            }
            return failed;
        });
    }

    private static ReplicaFailure failure(ReplicaTarget target, WriteResponse response, Throwable failure,
            boolean tracked) {
        if (failure == null && response.getStatus() == Status.OK) {
            return null;
        }
        ReplicaFailure.Builder failed = ReplicaFailure.newBuilder().setNode(target.getNode())
                .setAddress(target.getAddress()).setTracked(tracked);
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            return failed.setStatus(Status.ERROR).setProblem(String.valueOf(cause.getMessage())).build();
        }
        return failed.setStatus(response.getStatus()).setProblem(response.getStatus() + ": " + response.getError())
                .setDiverged(response.getError().contains(LivePartition.DIVERGED)).build();
    }
}
