package io.hedgerow.leaf.write;

import io.hedgerow.common.time.ClockWindows;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * The writes of one leaf: its {@link LivePartition}s, made on a partition's first write (or found
 * on disk at assignment, after a restart), the threads that run writes (they fsync, so never on an
 * event loop), and the timer that refreshes every partition with new writes each refresh interval
 * (so an acknowledged write is searchable within about that long) and commits each one now and
 * then (so a restart replays a short log), after which it trims each partition's log below what
 * the root says every replica holds ({@link LivePartition#trimLog}).
 *
 * <p>A leaf keeps its live copies under {@code <index>/live/<build>/node-<id>/partition-NNNN/}:
 * named after the build (a rebuilt index starts without writes; the writes of the old build are not
 * carried over) and the leaf's stable name ({@link LiveSettings#nodeId}, which {@code ./hedgerow
 * local} sets to the leaf's number), since leaves of one machine share an index directory and a
 * fresh {@code local} gives them new ports. A leaf without a name claims a stable directory of its
 * own ({@link LeafDirClaim}: the first {@code node-auto-<n>} no running leaf holds), so started again
 * on another port it finds its copies. Two leaves started with one name on one index cannot both
 * write: Lucene's write lock refuses the second one's writes. Snapshots of a leaf's copies, for
 * copies on other leaves to start from (file-based recovery, {@link LeafSnapshots}), go to the leaf's
 * own {@code <leaf dir>/snapshots/partition-NNNN/}; another leaf copies one over the wire (peer recovery:
 * {@link SnapshotFiles} serves it, {@link PeerRecovery} pulls it into
 * {@code <leaf dir>/recovery/partition-NNNN/}, which outlives a failed attempt so the next one
 * resumes). No directory is shared between leaves: each opens its own copy of the build.
 *
 * <p><b>Primary terms.</b> A request that carries a primary term is served only when the term is at
 * least the highest the partition's copy has accepted ({@link PrimaryTerms}, durable beside its log);
 * an older one is refused with {@code STALE_TERM} before anything is read or written, so a root that
 * missed a promotion can no longer order, copy or acknowledge writes on this copy.
 *
 * <p><b>No rebuild over a primary.</b> Before a copy numbers its first batch (or finishes a catch-up)
 * as the primary of a term, that term is recorded durably beside it ({@link PrimaryTerms#ROLE_FILE}).
 * A RESTORE of the copy that carries a term is refused ({@code REBUILD_REFUSED}, nothing done) unless
 * the term is newer: the primary of a term holds every write acknowledged in it and never leaves the in-sync set
 * in that term, so only a root with a stale view (a zombie root, a paused one resuming) asks that.
 * This leaf's own check, behind the root's (which restores only copies the store lists out of sync).
 * Nor over a copy fed since the root decided: refused when the copy's last seq differs from the seq
 * the root decided on ({@code expected_last_seq}, or the seq on arrival from an older root), checked
 * on arrival and again under the copy's lock before the swap. The RESTORE itself (pull, checks, swap)
 * is {@link CopyRestores}'s; this class swaps the copy under its locks when asked, writing the copy's
 * accepted term into the restored directory before it opens it.
 *
 * <p><b>Primary-led replication.</b> A batch sent to this leaf as a partition's primary is numbered,
 * queued to its replicas ({@code copy_to}, and those it tracks), then logged, synced and applied here,
 * all under the partition's lock, so the copies go in seq order ({@link ReplicationGroup}) and the
 * replicas' fsyncs overlap this copy's ({@link LivePartition.Numbered}); the request is answered once
 * this copy's log is synced and every copy answered or timed out, with the failures, without a write
 * thread waiting for the copies.
 * {@code FINISH_CATCH_UP} ends a replica's catch-up here, with no batch numbered in between.
 *
 * <p>With {@link LiveSettings#termLog}, each (term, primary) a copy accepts that it was not told
 * before is appended to that file ({@link TermChangeLog}), on the write threads.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. {@link #start} is called once, after the leaf
 * has bound its port and before any write is handled; a write that comes earlier is answered with
 * an error. Writes to one partition are serialized by its {@link LivePartition}.
 */
public final class LiveWrites implements Closeable {
    private static final System.Logger LOG = System.getLogger(LiveWrites.class.getName());
    /** How long a primary waits for each copy of a batch when the request says nothing ({@code copy_timeout_millis} 0). */
    static final long DEFAULT_COPY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final IndexContext index;
    private final LiveSettings settings;
    private final BiConsumer<Integer, PartitionSearcher> publish;
    private final IntPredicate assigned;
    private final WalMeters walMeters;
    private final Map<Integer, LivePartition> partitions = new ConcurrentHashMap<>();
    private final PrimaryTerms terms = new PrimaryTerms(WalFiles.SYSTEM);
    /** The highest term each copy took writes in as the partition's primary: no RESTORE over it in that term. */
    private final PrimaryTerms primaryIn = new PrimaryTerms(WalFiles.SYSTEM, PrimaryTerms.ROLE_FILE);
    /** A primary's copies to its replicas and the replicas it tracks ({@link ReplicationGroup}). */
    private final ReplicationGroup replication;
    /** Set by {@link #start}; {@link TermChangeLog#OFF} before, and without {@code --term-log}. */
    private volatile TermChangeLog termLog = TermChangeLog.OFF;
    private final ExecutorService writers;
    /**
     * Restores (pulling a snapshot from another leaf, for minutes) and the reads of this leaf's
     * snapshots for other leaves: one thread each, apart from the writes and from each other, so
     * two leaves restoring from each other never wait on each other's busy thread.
     */
    private final ExecutorService restores;
    private final ExecutorService snapshotReads;
    /** This leaf's snapshots of its copies, for other leaves' copies to start from. */
    private final LeafSnapshots snapshots;
    /** RESTOREs of this leaf's copies from other leaves' snapshots. */
    private final CopyRestores copyRestores;
    private final ScheduledExecutorService timer;
    private volatile Path dir;
    private volatile LeafDirClaim claim;
    /** Why {@link #start} could not claim a directory; null when it did (or has not run). */
    private volatile IOException startFailure;

    /**
     * @param publish  serves a partition's newer searcher from now on (and retires the old one)
     * @param assigned whether this leaf serves a partition now; writes to others are refused
     */
    public LiveWrites(IndexContext index, LiveSettings settings, BiConsumer<Integer, PartitionSearcher> publish,
            IntPredicate assigned) {
        this(index, settings, publish, assigned, WalMeters.NONE);
    }

    /** As the other constructor, every copy's write-ahead log telling {@code walMeters} what it does. */
    public LiveWrites(IndexContext index, LiveSettings settings, BiConsumer<Integer, PartitionSearcher> publish,
            IntPredicate assigned, WalMeters walMeters) {
        this.index = index;
        this.settings = settings;
        this.publish = publish;
        this.assigned = assigned;
        this.walMeters = walMeters;
        this.writers = Executors.newFixedThreadPool(2, daemon("leaf-writes"));
        this.restores = Executors.newSingleThreadExecutor(daemon("leaf-restores"));
        this.snapshotReads = Executors.newSingleThreadExecutor(daemon("leaf-snapshot-reads"));
        this.snapshots = new LeafSnapshots(this::startedDir, snapshotReads);
        this.copyRestores = new CopyRestores(new RestorableCopies(), primaryIn);
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("leaf-refresh"));
        this.replication = new ReplicationGroup(Ticker.system(), new TrackedFiles(partition -> {
            Path leafDir = dir;
            return leafDir == null ? null : partitionDir(leafDir, partition);
        }, WalFiles.SYSTEM));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Starts taking writes, keeping live copies under {@code buildLiveDir} (the build's live
     * directory), in this leaf's own directory ({@link LeafDirClaim}). When it cannot be claimed,
     * the leaf serves searches and refuses writes, saying why.
     */
    public void start(Path buildLiveDir, int port) {
        start(buildLiveDir, port, PeerFiles.NONE);
    }

    /** As {@link #start(Path, int)}, restoring snapshots of other leaves through {@code peers}. */
    public void start(Path buildLiveDir, int port, PeerFiles peers) {
        start(buildLiveDir, port, peers, PeerWrites.NONE);
    }

    /**
     * As {@link #start(Path, int, PeerFiles)}, a primary copying its numbered batches to its replicas
     * through {@code copies} ({@link ReplicationGroup}).
     */
    public void start(Path buildLiveDir, int port, PeerFiles peers, PeerWrites copies) {
        copyRestores.peers(peers);
        replication.links(copies);
        try {
            termLog = TermChangeLog.open(settings.termLog(), java.time.Clock.systemUTC());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.ERROR, "no term log: " + settings.termLog() + " cannot be opened", e);
        }
        try {
            this.claim = LeafDirClaim.claim(buildLiveDir, settings, port);
            this.dir = claim.dir();
        } catch (IOException e) {
            startFailure = e;
            LOG.log(System.Logger.Level.ERROR, "this leaf takes no writes: no directory for its live copies under "
                    + buildLiveDir, e);
        }
        long refreshNanos = settings.refreshInterval().toNanos();
        long commitNanos = settings.commitInterval().toNanos();
        timer.scheduleAtFixedRate(this::refreshAll, firstDelayNanos(refreshNanos), refreshNanos, TimeUnit.NANOSECONDS);
        timer.scheduleAtFixedRate(this::commitAll, firstDelayNanos(commitNanos), commitNanos, TimeUnit.NANOSECONDS);
    }

    /** Aligned: until the next whole period on the wall clock; else a phase of this leaf's own. */
    private long firstDelayNanos(long periodNanos) {
        if (!settings.alignedOnClock()) {
            return 1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(periodNanos);
        }
        java.time.Instant now = java.time.Instant.now();
        return ClockWindows.delayToNextNanos(now.getEpochSecond() * 1_000_000_000L + now.getNano(), periodNanos, 0);
    }

    /** Where this leaf keeps its live copies; null until {@link #start}. */
    public Path dir() {
        return dir;
    }

    /** Whether this leaf has a live copy of the partition on disk (writes it took before). */
    public boolean hasCopy(int partition) {
        Path leafDir = dir;
        return leafDir != null && Files.isDirectory(partitionDir(leafDir, partition).resolve(LivePartition.INDEX_DIR));
    }

    /** Opens the partition's live copy (publishing its searcher), if not open yet. */
    public void open(int partition) throws IOException {
        partition(partition);
    }

    /** The partition's open copy, opened if need be (tests: to hold the copy's lock as a write does). */
    LivePartition openCopy(int partition) throws IOException {
        return partition(partition);
    }

    private LivePartition partition(int partition) throws IOException {
        LivePartition live = partitions.get(partition);
        if (live != null) {
            return live;
        }
        synchronized (this) {
            live = partitions.get(partition);
            if (live == null) {
                Path leafDir = dir;
                if (leafDir == null) {
                    throw notStarted();
                }
                live = LivePartition.open(index, partition, partitionDir(leafDir, partition),
                        index.store().partitionDir(index.manifest(), partition),
                        searcher -> publish.accept(partition, searcher), WalFiles.SYSTEM, walMeters);
                partitions.put(partition, live);
                LOG.log(System.Logger.Level.INFO, "partition {0} takes writes ({1}; last seq {2})", partition,
                        partitionDir(leafDir, partition), live.lastSeq());
            }
            return live;
        }
    }

    /**
     * {@code <leaf dir>/partition-NNNN}. Named without {@code String.format}: every write request
     * asks for it (its term and role files), and the format showed in a JFR profile of a leaf's writes.
     */
    static Path partitionDir(Path leafDir, int partition) {
        String number = Integer.toString(partition);
        return leafDir.resolve("partition-" + "0".repeat(Math.max(0, 4 - number.length())) + number);
    }

    /** Closes a partition this leaf no longer serves (committing it first). */
    public void closePartition(int partition) {
        LivePartition live;
        synchronized (this) {
            live = partitions.remove(partition);
        }
        if (live != null) {
            closeQuietly(live);
        }
    }

    /**
     * Runs a write request off the caller's thread and hands its answer to {@code reply}: a restore
     * on the restore thread, anything else on the write threads. A primary's batch is answered once
     * its copies to the replicas are ({@link ReplicationGroup}), on whichever thread completes the
     * last of them: the write thread never waits for a replica.
     */
    public void handle(WriteRequest request, Consumer<WriteResponse> reply) {
        boolean restore = request.getOpsCount() == 1 && request.getOps(0).getKind() == WriteKind.RESTORE;
        (restore ? restores : writers).execute(() -> answerAsync(request).thenAccept(reply));
    }

    /** The replicas this leaf, as primary of {@code partition}, tracks now ({@link ReplicationGroup}). */
    public List<String> tracked(int partition) {
        return replication.tracked(partition);
    }

    /** A session serving this leaf's snapshots to one peer-recovery connection; closed with it. */
    public SnapshotFiles.Session snapshotSession() {
        return snapshots.session();
    }

    /** Answers a write request, waiting on the calling thread for a primary's copies (tests only). */
    public WriteResponse answer(WriteRequest request) {
        return answerAsync(request).join();
    }

    /**
     * Answers a write request: runs it on the calling thread, and completes at once, except for a
     * primary's batch or FINISH_CATCH_UP, which complete once their copies are answered.
     */
    public CompletableFuture<WriteResponse> answerAsync(WriteRequest request) {
        WriteResponse.Builder response = WriteResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(request.getPartition());
        if (!assigned.test(request.getPartition())) {
            return done(response.setStatus(Status.NOT_ASSIGNED)
                    .setError("partition " + request.getPartition() + " is not served by this leaf").build());
        }
        try {
            if (request.getPrimaryTerm() > 0) {
                long accepted = acceptTerm(request.getPartition(), request.getPrimaryTerm());
                response.setPrimaryTerm(accepted);
                if (accepted > request.getPrimaryTerm()) {
                    return done(response.setStatus(Status.STALE_TERM).setError("stale primary term: partition "
                            + request.getPartition() + " here has accepted term " + accepted + ", the request carries term "
                            + request.getPrimaryTerm() + " (expected: >= " + accepted + "; its root missed a promotion)")
                            .build());
                }
                termLog.told(request.getPartition(), request.getPrimaryTerm(), request.getPrimaryNode());
            }
            WriteOp first = request.getOpsCount() == 1 ? request.getOps(0) : null;
            WriteKind kind = first == null ? null : first.getKind();
            if (kind == WriteKind.READ_LOG && !partitions.containsKey(request.getPartition())
                    && !hasCopy(request.getPartition())) {
                // Never written here: the build as it is (a root asking at start makes no copy).
                if (request.getFromSeq() != LivePartition.PROBE && request.getFromSeq() > 0) {
                    return done(response.setStatus(Status.ERROR).setError(LivePartition.DIVERGED + "the requester is ahead: it"
                            + " holds writes up to seq " + request.getFromSeq() + " and partition " + request.getPartition()
                            + " here none; it must be rebuilt from this copy").build());
                }
                return done(response.setStatus(Status.OK).setLastSeq(0).setVisibleSeq(0).build());
            }
            if (kind == WriteKind.LIST_SNAPSHOT || kind == WriteKind.READ_SNAPSHOT_FILE) {
                return done(response.setStatus(Status.ERROR).setError(kind + " is served on a peer-recovery connection"
                        + " only (expected: a Hello in the PEER_RECOVERY role)").build());
            }
            if (kind == WriteKind.RESTORE) {
                LivePartition restored;
                try {
                    restored = copyRestores.restore(request);
                } catch (CopyRestores.RebuildRefused refused) {
                    LOG.log(System.Logger.Level.WARNING, refused.getMessage());
                    return done(response.setStatus(Status.REBUILD_REFUSED).setRebuildRefusal(refused.reason())
                            .setError(refused.getMessage()).build());
                }
                return done(response.setStatus(Status.OK).setLastSeq(restored.lastSeq()).setVisibleSeq(restored.visibleSeq())
                        .setTrimmedSeq(restored.trimmedSeq()).build());
            }
            LivePartition live = partition(request.getPartition());
            live.allowTrimming(request.getTrimmableSeq());
            if (kind == WriteKind.SNAPSHOT) {
                long seq = snapshots.snapshot(live, request.getPartition());
                return done(response.setStatus(Status.OK).setSnapshot(snapshots.name(request.getPartition(), seq))
                        .setLastSeq(seq).build());
            }
            if (kind == WriteKind.READ_LOG) {
                // At most LivePartition.LOG_READ_BYTES of ops: the root asks again from the last one.
                response.addAllLog(live.logFrom(request.getFromSeq()));
            } else if (kind == WriteKind.GET) {
                response.addResults(live.get(first.getId()));
            } else if (kind == WriteKind.FINISH_CATCH_UP) {
                recordPrimary(live, request);
                return finishCatchUp(live, request, response);
            } else if (request.getPrimary()) {
                recordPrimary(live, request);
                List<CompletableFuture<List<ReplicaFailure>>> copies = new ArrayList<>(1);
                synchronized (live) {
                    // Its tracked replicas known (read after a restart) before anything is numbered.
                    replication.open(request.getPartition(), request.getPrimaryTerm());
                    // Numbered and queued to the replicas under one lock (the copies go in seq order), before
                    // this copy's own log sync: the replicas' syncs overlap it. Answered after both.
                    response.addAllResults(live.write(request.getOpsList(), true,
                            numbered -> copies.add(copy(request, numbered))));
                }
                if (request.getWaitForRefresh()) {
                    live.refresh();
                }
                WriteResponse numbered = response.setStatus(Status.OK).setLastSeq(live.lastSeq())
                        .setVisibleSeq(live.visibleSeq()).setTrimmedSeq(live.trimmedSeq()).setCopied(true).build();
                if (copies.isEmpty()) {
                    return done(numbered); // nothing numbered: nothing to copy
                }
                return copies.get(0).thenApply(failures -> numbered.toBuilder().addAllReplicaFailures(failures).build());
            } else {
                response.addAllResults(live.write(request.getOpsList(), false));
                replication.replicaOf(request.getPartition());
                if (request.getWaitForRefresh()) {
                    live.refresh();
                }
            }
            return done(response.setStatus(Status.OK).setLastSeq(live.lastSeq()).setVisibleSeq(live.visibleSeq())
                    .setTrimmedSeq(live.trimmedSeq()).build());
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "write to partition " + request.getPartition() + " failed", e);
            return done(response.setStatus(Status.ERROR).setError(String.valueOf(e.getMessage())).build());
        }
    }

    private static CompletableFuture<WriteResponse> done(WriteResponse response) {
        return CompletableFuture.completedFuture(response);
    }

    /**
     * Queues the numbered ops of a primary's batch (the very ops its log takes, not copied again) to
     * its replicas; the caller holds the partition's lock.
     */
    private CompletableFuture<List<ReplicaFailure>> copy(WriteRequest request, List<WriteOp> numbered)
            throws IOException {
        WriteRequest copy = WriteRequest.newBuilder().setPartition(request.getPartition()).setPrimary(false)
                .setPrimaryTerm(request.getPrimaryTerm()).setPrimaryNode(request.getPrimaryNode())
                .setTrimmableSeq(request.getTrimmableSeq()).setWaitForRefresh(request.getWaitForRefresh())
                .addAllOps(numbered).build();
        return replication.copy(request.getPartition(), request.getPrimaryTerm(), request.getCopyToList(), copy,
                copyTimeoutNanos(request));
    }

    private static long copyTimeoutNanos(WriteRequest request) {
        return request.getCopyTimeoutMillis() > 0 ? TimeUnit.MILLISECONDS.toNanos(request.getCopyTimeoutMillis())
                : DEFAULT_COPY_TIMEOUT_NANOS;
    }

    /**
     * FINISH_CATCH_UP, to the primary: with no batch numbered in between (the partition's lock), the
     * log above the replica's last seq is queued to it and it is tracked from then on
     * ({@link ReplicationGroup#finish}); answered OK, with the seq it now holds, once it has the log.
     */
    private CompletableFuture<WriteResponse> finishCatchUp(LivePartition live, WriteRequest request,
            WriteResponse.Builder response) throws IOException {
        if (request.getCopyToCount() != 1) {
            return done(response.setStatus(Status.ERROR).setError("FINISH_CATCH_UP names " + request.getCopyToCount()
                    + " replicas (expected: exactly one, in copy_to)").build());
        }
        CompletableFuture<ReplicaFailure> finished;
        long target;
        synchronized (live) {
            List<WriteOp> log = live.logFrom(request.getFromSeq());
            target = live.lastSeq();
            long reached = log.isEmpty() ? request.getFromSeq() : log.get(log.size() - 1).getSeq();
            if (reached < target) {
                return done(response.setStatus(Status.ERROR).setError("replica " + request.getCopyTo(0).getNode()
                        + " at seq " + request.getFromSeq() + " is more than one log read behind seq " + target
                        + " (expected: within " + LivePartition.LOG_READ_BYTES + " bytes of log; catch it up first)")
                        .build());
            }
            List<WriteRequest> copies = log.isEmpty() ? List.of() : List.of(WriteRequest.newBuilder()
                    .setPartition(request.getPartition()).setPrimary(false).setPrimaryTerm(request.getPrimaryTerm())
                    .setPrimaryNode(request.getPrimaryNode()).setTrimmableSeq(request.getTrimmableSeq())
                    .setWaitForRefresh(true).addAllOps(log).build());
            finished = replication.finish(request.getPartition(), request.getPrimaryTerm(), request.getCopyTo(0),
                    copies, copyTimeoutNanos(request));
        }
        WriteResponse.Builder answered = response.setLastSeq(target).setCopied(true);
        return finished.thenApply(failure -> failure == null ? answered.setStatus(Status.OK).build()
                : answered.setStatus(Status.ERROR).addReplicaFailures(failure).setError("finishing the catch-up of "
                        + failure.getNode() + ": " + failure.getProblem()).build());
    }

    /**
     * Accepts the request's primary term for the partition's copy ({@link PrimaryTerms}), durably
     * when it rises, before the request is served.
     *
     * @return the copy's accepted term: higher than {@code term} when the request must be refused
     */
    private long acceptTerm(int partition, long term) throws IOException {
        Path leafDir = dir;
        if (leafDir == null) {
            throw notStarted();
        }
        return terms.accept(partition, partitionDir(leafDir, partition), term);
    }

    /**
     * Records, durably before the request is served, that this copy takes writes as the partition's
     * primary in the request's term (term 0, a root without terms: nothing recorded).
     */
    private void recordPrimary(LivePartition live, WriteRequest request) throws IOException {
        if (request.getPrimaryTerm() > 0) {
            // Under the copy's lock, which a restore's swap holds: recorded for a copy being replaced, the
            // role would land in the restored copy's directory and refuse its rebuilds for the whole term.
            synchronized (live) {
                if (partitions.get(request.getPartition()) != live) {
                    throw new IOException("partition " + request.getPartition() + ": this copy was replaced by a"
                            + " restore while the request waited (expected: the copy it was asked of); ask again");
                }
                primaryIn.accept(request.getPartition(), partitionDir(dir, request.getPartition()),
                        request.getPrimaryTerm());
            }
        }
    }

    private IOException notStarted() {
        IOException failure = startFailure;
        return failure == null ? new IOException("this leaf does not take writes yet (it has not finished starting)")
                : new IOException("this leaf takes no writes: " + failure.getMessage(), failure);
    }

    /** This leaf's copies as a RESTORE finds and replaces one ({@link CopyRestores}). */
    private final class RestorableCopies implements CopyRestores.Copies {
        @Override
        public Path leafDir() throws IOException {
            return startedDir();
        }

        @Override
        public boolean onDisk(int partition) {
            return hasCopy(partition);
        }

        @Override
        public LivePartition openQuietly(int partition) {
            if (!partitions.containsKey(partition) && !hasCopy(partition)) {
                return null;
            }
            try {
                return partition(partition);
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "partition " + partition + ": its copy cannot be opened before a"
                        + " restore replaces it", e);
                return null;
            }
        }

        @Override
        public LivePartition replace(int partition, Path staging, CopyRestores.SwapCheck check) throws IOException {
            Path target = partitionDir(startedDir(), partition);
            synchronized (LiveWrites.this) {
                LivePartition old = partitions.get(partition);
                synchronized (old != null ? old : LiveWrites.this) {
                    check.check(old);
                    return swap(partition, staging, target, old);
                }
            }
        }
    }

    /** Replaces {@code old} (may be null) by the pulled snapshot in {@code staging}; the caller holds the locks. */
    private LivePartition swap(int partition, Path staging, Path target, LivePartition old) throws IOException {
        if (old != null) {
            partitions.remove(partition);
            closeQuietly(old);
        }
        PartitionStore.deleteTree(target);
        primaryIn.forget(partition); // its role file went with the old copy: the restored one was no primary
        LiveCopies.createDirectories(target);
        // The term fence went with the old copy too: on disk again before the restored copy opens, so a
        // leaf that dies from here on still refuses the older terms this copy accepted.
        terms.rewrite(partition, target);
        WalFiles.SYSTEM.move(staging, target.resolve(LivePartition.INDEX_DIR));
        WalFiles.SYSTEM.syncDirectory(target);
        WalFiles.SYSTEM.syncDirectory(staging.getParent());
        LivePartition live = LivePartition.open(index, partition, target,
                index.store().partitionDir(index.manifest(), partition),
                searcher -> publish.accept(partition, searcher), WalFiles.SYSTEM, walMeters);
        partitions.put(partition, live);
        return live;
    }

    /** This leaf's directory; before {@link #start} claimed one, the reason it takes no writes. */
    private Path startedDir() throws IOException {
        Path leafDir = dir;
        if (leafDir == null) {
            throw notStarted();
        }
        return leafDir;
    }

    private void refreshAll() {
        for (LivePartition live : partitions.values()) {
            try {
                live.refresh();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "refreshing partition " + live.partition() + " failed", e);
            }
        }
    }

    private void commitAll() {
        for (LivePartition live : partitions.values()) {
            try {
                live.commit();
                live.trimLog();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "committing partition " + live.partition() + " failed", e);
            }
        }
    }

    private static void closeQuietly(LivePartition live) {
        try {
            live.close();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing partition " + live.partition() + " failed", e);
        }
    }

    /** Stops the threads and commits and closes every partition. */
    @Override
    public void close() {
        // Not shutdownNow: interrupting a commit in progress closes Lucene's channels under it (the
        // write lock among them), and the closing commit below would then fail.
        timer.shutdown();
        restores.shutdownNow(); // a pull in progress fails; its staging directory resumes it next time
        snapshotReads.shutdownNow();
        writers.shutdown();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
            writers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            partitions.values().forEach(LiveWrites::closeQuietly);
            partitions.clear();
            LeafDirClaim held = claim;
            if (held != null) {
                try {
                    held.close();
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "releasing " + held.dir() + " failed", e);
                }
            }
        }
        termLog.close();
    }
}
