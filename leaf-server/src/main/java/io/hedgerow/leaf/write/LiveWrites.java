package io.hedgerow.leaf.write;

import io.hedgerow.common.time.ClockWindows;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p>Each write request is answered by its kind in {@link WriteAnswers}: primary terms
 * ({@code STALE_TERM}), primary-led replication, reads of the log, snapshots, restores and the end
 * of a catch-up, with the term log ({@link LiveSettings#termLog}).
 *
 * <p><b>No rebuild over a primary.</b> Before a copy numbers its first batch (or finishes a catch-up)
 * as the primary of a term, that term is recorded durably beside it ({@link PrimaryTerms#ROLE_FILE},
 * by {@link WriteAnswers}).
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
 * <p><b>Assumptions and guarantees.</b> Thread-safe. {@link #start} is called once, after the leaf
 * has bound its port and before any write is handled; a write that comes earlier is answered with
 * an error. Writes to one partition are serialized by its {@link LivePartition}.
 */
public final class LiveWrites implements Closeable {
    private static final System.Logger LOG = System.getLogger(LiveWrites.class.getName());
    private final IndexContext index;
    private final LiveSettings settings;
    private final BiConsumer<Integer, PartitionSearcher> publish;
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
    /** Answers each write request by its kind. */
    private final WriteAnswers answers;
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
        this.walMeters = walMeters;
        this.writers = Executors.newFixedThreadPool(2, daemon("leaf-writes"));
        this.restores = Executors.newSingleThreadExecutor(daemon("leaf-restores"));
        this.snapshotReads = Executors.newSingleThreadExecutor(daemon("leaf-snapshot-reads"));
        this.snapshots = new LeafSnapshots(this::startedDir, snapshotReads);
        LeafCopies copies = new LeafCopies();
        this.copyRestores = new CopyRestores(copies, primaryIn);
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("leaf-refresh"));
        this.replication = new ReplicationGroup(Ticker.system(), new TrackedFiles(partition -> {
            Path leafDir = dir;
            return leafDir == null ? null : partitionDir(leafDir, partition);
        }, WalFiles.SYSTEM));
        this.answers = new WriteAnswers(copies, assigned, terms, primaryIn, replication, copyRestores, snapshots,
                () -> termLog);
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
     * primary's batch or FINISH_CATCH_UP, which complete once their copies are answered
     * ({@link WriteAnswers}).
     */
    public CompletableFuture<WriteResponse> answerAsync(WriteRequest request) {
        return answers.answer(request);
    }

    private IOException notStarted() {
        IOException failure = startFailure;
        return failure == null ? new IOException("this leaf does not take writes yet (it has not finished starting)")
                : new IOException("this leaf takes no writes: " + failure.getMessage(), failure);
    }

    /**
     * This leaf's copies as a RESTORE finds and replaces one ({@link CopyRestores}) and as a write
     * request finds or opens one ({@link WriteAnswers}).
     */
    private final class LeafCopies implements CopyRestores.Copies, WriteAnswers.Copies {
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
        public LivePartition opened(int partition) {
            return partitions.get(partition);
        }

        @Override
        public LivePartition open(int partition) throws IOException {
            return partition(partition);
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
