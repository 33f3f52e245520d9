package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.HedgerowCodec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.store.FSDirectory;

/**
 * A partition that takes writes: a leaf's own copy of the partition's Lucene index (hard links to
 * the build's files at first, which Lucene never changes in place), an {@link IndexWriter} on it,
 * and the partition's log ({@link PartitionLog}: its {@link WriteLog}, and what it holds by seq).
 * Each write is logged and synced before it is applied and answered; searches see it at the next
 * {@link #refresh} (a near-real-time reader from the writer), which hands the new
 * {@link PartitionSearcher} to whoever serves the partition.
 *
 * <p><b>Sequence numbers and versions.</b> As primary, the partition gives each write the next
 * number ({@code lastSeq + 1}); as replica it takes the primary's, and acknowledges a seq it already
 * has only when the op is the one it holds under that seq ({@link SeqDigests}), so a resend is
 * harmless and a diverged copy is refused ({@link #DIVERGED}) rather than skipping ops silently. A
 * document's version is the seq of its last write (0 for a document from the build). {@code lastSeq}
 * is recovered at open from the Lucene commit and the log, so numbers are never reused across
 * restarts. A Lucene {@link #commit} records the seq it covers, and opening
 * replays only the logged writes above it. {@link #trimLog} then drops the records below both that
 * commit and what every replica holds; a catch-up that would need dropped records fails
 * ({@link #logFrom}).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every method holds this object's monitor, so
 * writes, refreshes, commits and realtime gets of one partition are serialized (the root sends a
 * partition's writes one batch at a time anyway). A write is answered only after its log record is
 * on the disk, and every op is checked ({@link OpChecks}) before it is logged. A failed log write or
 * sync answers the whole batch with an error, applies none, and fails the copy: it takes no more
 * writes until it is opened again or rebuilt ({@link WriteLog}'s failure rules).
 */
final class LivePartition implements Closeable {
    /** Each live write's seq, as a doc value: the document's version. */
    static final String SEQ_FIELD = "_seq";
    /** Commit user data: the seq up to which the commit holds every write. */
    static final String COMMIT_SEQ = "hedgerow.seq";
    static final String INDEX_DIR = "index";
    static final String LOG_FILE = "wal.log";
    /** How an error from a replica that missed writes begins; the root catches it up when it sees it. */
    static final String BEHIND = "replica behind: its last seq is ";
    /** How the error of a catch-up whose writes were trimmed from the log begins. */
    static final String TRIMMED = "log trimmed: ";
    /**
     * How the error begins when a replica holds another op under a seq it is sent, or a catch-up
     * asks from a seq above this copy's last: the copies diverged, and the one behind the source's
     * history must be rebuilt from the source, never skip or be marked in sync.
     */
    static final String DIVERGED = "diverged: ";
    /** A log read from this seq asks only for the copy's seqs (the root's probe), never for ops. */
    static final long PROBE = Long.MAX_VALUE;
    /**
     * How many bytes of encoded ops a catch-up read answers at most (one op however large, up to
     * {@link OpChecks#MAX_OP_BYTES}): the answer stays well within a frame, and a replica far behind
     * catches up in several reads.
     */
    static final long LOG_READ_BYTES = 4 * 1024 * 1024;
    /**
     * The size under which the merge policy weighs a segment as if it were this large. Under
     * steady writes each refresh makes a small segment per copy (tens of documents), and a segment
     * under the floor weighs the same as those, so every merge took the one growing merged segment
     * along again until it passed the floor: at Lucene's default (16 MB, more than a whole
     * micro-partition) and even at 1 MB, each written document was merged about 5 times
     * ({@code LiveMergeFloorTest}), and merging was about half of a leaf's CPU while ingesting.
     * At a quarter of a megabyte (a few hundred documents) small segments merge with their likes,
     * 2.7 times per document, for a few more segments per partition.
     */
    static final double MERGE_FLOOR_MB = 0.25;

    private final int partition;
    private final IndexContext context;
    private final DocumentMapper mapper;
    private final OpChecks checks;
    private final FSDirectory directory;
    private final IndexWriter writer;
    private final PartitionLog log;
    private final Consumer<PartitionSearcher> publish;
    /** Writes since the last refresh: id to version, negative when deleted at that seq. */
    private final Map<String, Long> recent = new HashMap<>();
    /** Why this copy takes no more writes (a failed log, or Lucene refusing a logged op); null while it does. */
    private Exception failure;
    private long lastSeq;
    private long committedSeq;
    /** The highest seq searches see: lastSeq at the last refresh. */
    private long visibleSeq;
    private boolean refreshed = true;
    /** The newest reader; this object holds one reference of its own to it. */
    private DirectoryReader reader;

    private LivePartition(int partition, IndexContext context, FSDirectory directory, IndexWriter writer,
            PartitionLog log, long committedSeq, Consumer<PartitionSearcher> publish) {
        this.partition = partition;
        this.context = context;
        this.mapper = new DocumentMapper(context.manifest().config());
        this.checks = new OpChecks(mapper);
        this.directory = directory;
        this.writer = writer;
        this.log = log;
        this.committedSeq = committedSeq;
        this.publish = publish;
    }

    /**
     * Opens the partition's live copy in {@code dir}, making it from {@code source} (the build's
     * partition) when there is none yet, replays the log above the last commit, and publishes a
     * searcher on the result.
     */
    static LivePartition open(IndexContext context, int partition, Path dir, Path source,
            Consumer<PartitionSearcher> publish) throws IOException {
        return open(context, partition, dir, source, publish, WalFiles.SYSTEM);
    }

    /** As {@link #open(IndexContext, int, Path, Path, Consumer)}, with the log's files on {@code files}. */
    static LivePartition open(IndexContext context, int partition, Path dir, Path source,
            Consumer<PartitionSearcher> publish, WalFiles files) throws IOException {
        return open(context, partition, dir, source, publish, files, WalMeters.NONE);
    }

    /** As {@link #open(IndexContext, int, Path, Path, Consumer, WalFiles)}, its log telling {@code walMeters}. */
    static LivePartition open(IndexContext context, int partition, Path dir, Path source,
            Consumer<PartitionSearcher> publish, WalFiles files, WalMeters walMeters) throws IOException {
        Path index = dir.resolve(INDEX_DIR);
        if (!Files.isDirectory(index)) {
            LiveCopies.linkOrCopy(source, dir, index, files);
        }
        FSDirectory directory = FSDirectory.open(index);
        IndexWriter writer = null;
        WriteLog log = null;
        try {
            writer = new IndexWriter(directory, writerConfig(context.analyzer()));
            long committedSeq = committedSeq(writer);
            List<WriteOp> logged = new ArrayList<>();
            log = WriteLog.open(files, dir.resolve(LOG_FILE), logged, walMeters);
            LivePartition live = new LivePartition(partition, context, directory, writer,
                    new PartitionLog(partition, log, logged, committedSeq), committedSeq, publish);
            live.recover(logged);
            return live;
        } catch (IOException | RuntimeException e) {
            closeAll(log, writer, directory, e);
            throw e;
        }
    }

    /** How a live copy's writer indexes, merges and closes (a fresh config each time: a writer owns its config). */
    static IndexWriterConfig writerConfig(Analyzer analyzer) {
        return new IndexWriterConfig(analyzer)
                .setOpenMode(IndexWriterConfig.OpenMode.APPEND)
                .setCodec(new HedgerowCodec())
                .setMergePolicy(new TieredMergePolicy().setFloorSegmentMB(MERGE_FLOOR_MB))
                .setCommitOnClose(false);
    }

    /** The seq the index's last commit covers (0 for the build's own commit). */
    private static long committedSeq(IndexWriter writer) {
        Iterable<Map.Entry<String, String>> data = writer.getLiveCommitData();
        if (data != null) {
            for (Map.Entry<String, String> entry : data) {
                if (entry.getKey().equals(COMMIT_SEQ)) {
                    return Long.parseLong(entry.getValue());
                }
            }
        }
        return 0;
    }

    private static void closeAll(Closeable log, IndexWriter writer, FSDirectory directory, Exception failure) {
        for (Closeable closeable : new Closeable[] {log, writer, directory}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private synchronized void recover(List<WriteOp> logged) throws IOException {
        lastSeq = committedSeq;
        for (WriteOp op : logged) {
            if (op.getSeq() > committedSeq) {
                apply(op, null);
            }
            lastSeq = Math.max(lastSeq, op.getSeq());
        }
        recent.clear();
        visibleSeq = lastSeq;
        reader = DirectoryReader.open(writer);
        reader.incRef();
        publish.accept(PartitionSearcher.of(context, partition, reader));
    }

    int partition() {
        return partition;
    }

    synchronized long lastSeq() {
        return lastSeq;
    }

    synchronized long visibleSeq() {
        return visibleSeq;
    }

    /**
     * Writes a batch: as primary, checks each op (its document against the index config, its
     * expected version) and numbers the ones that pass; as replica, checks each op's content and
     * takes the ones above {@code lastSeq}, acknowledging one it already holds only when it is the
     * same op. Then logs and syncs them, applies them, and answers one result per op.
     *
     * @throws IOException when the log cannot be written or synced (nothing of the batch is applied
     *                     here, though a primary's replicas may hold it, and the copy takes no more writes), when this copy failed earlier, or, as
     *                     replica, when the batch leaves a gap, holds an op this copy refuses, or
     *                     diverges from what this copy holds (nothing of the batch is logged)
     */
    synchronized List<WriteResult> write(List<WriteOp> ops, boolean primary) throws IOException {
        return write(ops, primary, Numbered.NONE);
    }

    /**
     * What a primary does with a batch's numbered ops before its own log takes them: queue them to
     * its replicas ({@link ReplicationGroup}), so their fsyncs run while this copy syncs its own
     * (Elasticsearch's model), rather than after it.
     */
    @FunctionalInterface
    interface Numbered {
        Numbered NONE = numbered -> { };

        /**
         * Called under the partition's lock with the ops just numbered (in seq order, none logged
         * yet); an exception fails the batch before anything is logged.
         */
        void accept(List<WriteOp> numbered) throws IOException;
    }

    /**
     * As {@link #write(List, boolean)}, handing the numbered ops to {@code numbered} before they are
     * logged. The batch is still answered only after this copy's log is synced, so handing them on
     * early promises nothing: an op a replica took but this copy then failed to sync was never
     * acknowledged, and if this copy numbers another op under that seq later (after it is opened
     * again), the replica refuses it as {@link #DIVERGED} and is rebuilt, never skips it.
     */
    synchronized List<WriteResult> write(List<WriteOp> ops, boolean primary, Numbered numbered) throws IOException {
        requireUsable();
        List<WriteResult> results = new ArrayList<>(ops.size());
        List<WriteOp> accepted = new ArrayList<>(ops.size());
        // The document each accepted op writes (null for a delete), as its check mapped it: mapped once.
        List<Document> documents = new ArrayList<>(ops.size());
        long seqBefore = lastSeq;
        long next = lastSeq;
        // Versions as this batch changes them, so two ops on one id in a batch see each other.
        Map<String, Long> batchVersions = new HashMap<>();
        for (WriteOp op : ops) {
            if (!primary) {
                long seq = op.getSeq();
                if (seq <= 0) {
                    throw new IOException("partition " + partition + ": a replica's op with seq " + seq
                            + " (expected: the primary's number, > 0)");
                }
                if (seq > next + 1) {
                    // A gap: this replica missed writes (it was down, or another root wrote meanwhile).
                    throw new IOException(BEHIND + lastSeq + " and was sent seq " + seq
                            + " (expected: at most " + (next + 1) + "); it must catch up from the log first");
                }
                if (seq > next) {
                    OpChecks.Verdict verdict = checks.checkContent(op);
                    if (!verdict.passed()) {
                        throw new IOException("partition " + partition + ": seq " + seq + " from the primary is refused"
                                + " here (" + verdict.refused().getError() + "); nothing of the batch was logged");
                    }
                    next = seq;
                    accepted.add(op);
                    documents.add(verdict.document());
                } else {
                    log.requireSameOp(op, seqBefore, accepted);
                }
                results.add(WriteResult.newBuilder().setOutcome(WriteOutcome.UPDATED).setSeq(seq).build());
                continue;
            }
            long current = batchVersions.containsKey(op.getId()) ? batchVersions.get(op.getId()) : version(op.getId());
            OpChecks.Verdict verdict = checks.check(op, current);
            if (!verdict.passed()) {
                results.add(verdict.refused());
                continue;
            }
            long seq = ++next;
            accepted.add(op.toBuilder().setSeq(seq).build());
            documents.add(verdict.document());
            batchVersions.put(op.getId(), op.getKind() == WriteKind.DELETE ? -1L : seq);
            WriteOutcome outcome = op.getKind() == WriteKind.DELETE ? WriteOutcome.DELETED
                    : current < 0 ? WriteOutcome.CREATED : WriteOutcome.UPDATED;
            results.add(WriteResult.newBuilder().setOutcome(outcome).setSeq(seq).setVersion(seq).build());
        }
        if (!accepted.isEmpty()) {
            if (primary) {
                numbered.accept(accepted);
            }
            try {
                log.appendAndSync(accepted);
            } catch (IOException | RuntimeException e) {
                failure = e;
                throw new IOException("partition " + partition + ": cannot log " + accepted.size()
                        + " writes durably (" + e.getMessage() + "); none was applied here (a replica sent them already"
                        + " may hold them: they were never acknowledged), and this copy takes no more"
                        + " writes until it is opened again or rebuilt", e);
            }
            lastSeq = next;
            try {
                for (int i = 0; i < accepted.size(); i++) {
                    apply(accepted.get(i), documents.get(i));
                }
            } catch (IOException | RuntimeException e) {
                // Logged but not (all) applied: the copy's index and log disagree until it is opened again.
                failure = e;
                throw e;
            }
        }
        return results;
    }

    private void requireUsable() throws IOException {
        if (failure != null) {
            throw new IOException("partition " + partition + " failed earlier (" + failure.getMessage()
                    + "): this copy takes no more writes until it is opened again or rebuilt", failure);
        }
    }

    /** @param mapped the upsert's document as its check mapped it (not yet indexed); null: map it here */
    private void apply(WriteOp op, Document mapped) throws IOException {
        Term id = new Term(IndexConfig.ID_FIELD, op.getId());
        if (op.getKind() == WriteKind.DELETE) {
            writer.deleteDocuments(id);
            recent.put(op.getId(), -op.getSeq());
        } else {
            Document doc = mapped != null ? mapped : mapper.toDocument(op.getId(), OpChecks.fieldsOf(op));
            doc.add(new NumericDocValuesField(SEQ_FIELD, op.getSeq()));
            writer.updateDocument(id, doc);
            recent.put(op.getId(), op.getSeq());
        }
        refreshed = false;
    }

    /** The document's version: -1 when there is none, 0 for one from the build. Realtime. */
    private long version(String id) throws IOException {
        Long recentVersion = recent.get(id);
        if (recentVersion != null) {
            return recentVersion < 0 ? -1 : recentVersion;
        }
        IdLookup.Found found = IdLookup.find(reader, id);
        return found == null ? -1 : found.version();
    }

    /** A realtime read by id: refreshes first when there are writes no reader has seen. */
    synchronized WriteResult get(String id) throws IOException {
        refresh();
        IdLookup.Found found = IdLookup.find(reader, id);
        if (found == null) {
            return WriteResult.newBuilder().setOutcome(WriteOutcome.NOT_FOUND).setError("no document '" + id + "'").build();
        }
        WriteResult.Builder result = WriteResult.newBuilder().setOutcome(WriteOutcome.FOUND).setVersion(found.version());
        Document doc = found.leaf().reader().storedFields().document(found.doc());
        for (IndexableField field : doc.getFields()) {
            if (field.stringValue() != null && !field.name().equals(IndexConfig.ID_FIELD)) {
                result.addFields(StoredField.newBuilder().setName(field.name()).setValue(field.stringValue()));
            }
        }
        return result.build();
    }

    /** Makes every applied write visible to searches; false when there was nothing new. */
    synchronized boolean refresh() throws IOException {
        if (refreshed) {
            return false;
        }
        DirectoryReader next = DirectoryReader.openIfChanged(reader, writer);
        refreshed = true;
        recent.clear();
        visibleSeq = lastSeq;
        if (next == null) {
            return false;
        }
        next.incRef();
        DirectoryReader old = reader;
        reader = next;
        publish.accept(PartitionSearcher.of(context, partition, next));
        old.decRef();
        return true;
    }

    /** Commits the Lucene index with the seq it covers, so a restart replays less of the log. */
    synchronized void commit() throws IOException {
        // A failed copy's index may lack ops its log holds: a commit would claim them, and the next
        // open would not replay them.
        requireUsable();
        if (committedSeq == lastSeq) {
            return;
        }
        long covered = lastSeq;
        writer.setLiveCommitData(Map.of(COMMIT_SEQ, Long.toString(covered)).entrySet());
        writer.commit();
        committedSeq = covered;
    }

    /**
     * The logged writes above {@code fromSeq}, for a replica catching up: at most
     * {@link #LOG_READ_BYTES} of them (at least one), so the replica asks again from the last one it
     * got until it has {@link #lastSeq}. From {@link #PROBE}, or from the last seq: none.
     *
     * @throws IOException ({@link #TRIMMED}) when some of them were trimmed from the log: the replica
     *                     never gets a log with a hole, and restores a {@link #snapshot} first; or
     *                     ({@link #DIVERGED}) when the requester is ahead of this copy
     */
    synchronized List<WriteOp> logFrom(long fromSeq) throws IOException {
        if (fromSeq == PROBE || fromSeq == lastSeq) {
            return List.of();
        }
        if (fromSeq > lastSeq) {
            throw new IOException(DIVERGED + "the requester is ahead: it holds writes up to seq " + fromSeq
                    + " and partition " + partition + " here only up to seq " + lastSeq + "; it must be rebuilt from"
                    + " this copy (never marked in sync: its ops above seq " + lastSeq + " are not this copy's)");
        }
        return log.readFrom(fromSeq);
    }

    /**
     * Commits, then publishes that commit as a snapshot in the directory {@code where} names for
     * its seq (kept as it is if it exists: a snapshot of that seq was made before): hard links to
     * exactly the commit's files, so the snapshot never changes whatever this copy does next.
     * Another leaf's copy starts from it ({@code RESTORE}) when it is too far behind this copy's
     * log to catch up from it (file-based recovery).
     *
     * @return the seq the snapshot holds every write up to
     */
    synchronized long snapshot(LongFunction<Path> where) throws IOException {
        commit();
        Path target = where.apply(committedSeq);
        if (!Files.isDirectory(target)) {
            // No commit can run meanwhile (this monitor), so the files of the last one stay on disk.
            SegmentInfos commit = SegmentInfos.readLatestCommit(directory);
            LiveCopies.linkOrCopy(directory.getDirectory(), commit.files(true), target.getParent(), target);
        }
        return committedSeq;
    }

    /** The root's word that every replica holds every write up to {@code seq}; only ever raised. */
    synchronized void allowTrimming(long seq) {
        log.allowTrimming(seq);
    }

    /**
     * Drops the log's records at or below both the last Lucene commit (this replica no longer needs
     * them to recover) and the seq every replica holds (no replica needs them to catch up).
     *
     * @return how many records were dropped
     */
    synchronized int trimLog() throws IOException {
        return log.trim(committedSeq);
    }

    /** The log holds every write above this seq. */
    synchronized long trimmedSeq() {
        return log.trimmedSeq();
    }

    /**
     * Closes without committing, as a crash would leave the copy (Lucene keeps its last commit, the
     * log what it synced): for tests that open it again to see what recovery makes of it.
     */
    synchronized void closeWithoutCommit() throws IOException {
        writer.rollback();
        reader.decRef();
        closeAll(log, null, directory, new IOException("closing partition " + partition));
    }

    /** Commits and closes; the published searcher stays until its server closes it. */
    @Override
    public synchronized void close() throws IOException {
        try {
            if (failure == null) {
                commit();
            }
        } finally {
            reader.decRef();
            closeAll(log, writer, directory, new IOException("closing partition " + partition));
        }
    }
}
