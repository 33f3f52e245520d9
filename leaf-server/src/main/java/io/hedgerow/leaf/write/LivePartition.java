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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;

/**
 * A partition that takes writes: a leaf's own copy of the partition's Lucene index (hard links to
 * the build's files at first, which Lucene never changes in place), an {@link IndexWriter} on it,
 * and the partition's {@link WriteLog}. Each write is logged and synced before it is applied and
 * answered; searches see it at the next {@link #refresh} (a near-real-time reader from the writer),
 * which hands the new {@link PartitionSearcher} to whoever serves the partition.
 *
 * <p><b>Sequence numbers and versions.</b> As primary, the partition gives each write the next
 * number ({@code lastSeq + 1}); as replica it takes the primary's and skips any it already has, so a
 * resend is harmless. A document's version is the seq of its last write (0 for a document from the
 * build). {@code lastSeq} is recovered at open from the Lucene commit and the log, so numbers are
 * never reused across restarts. A Lucene {@link #commit} records the seq it covers, and opening
 * replays only the logged writes above it. {@link #trimLog} then drops the records below both that
 * commit and what every replica holds; a catch-up that would need dropped records fails
 * ({@link #logFrom}).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every method holds this object's monitor, so
 * writes, refreshes, commits and realtime gets of one partition are serialized (the root sends a
 * partition's writes one batch at a time anyway). A write is answered only after its log record is
 * on the disk; a failed log write or sync answers the whole batch with an error and applies none.
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

    private final int partition;
    private final IndexContext context;
    private final DocumentMapper mapper;
    private final OpChecks checks;
    private final FSDirectory directory;
    private final IndexWriter writer;
    private final WriteLog log;
    private final Consumer<PartitionSearcher> publish;
    /** Writes since the last refresh: id to version, negative when deleted at that seq. */
    private final Map<String, Long> recent = new HashMap<>();
    private long lastSeq;
    private long committedSeq;
    /** The root's word: every replica holds every write up to it (or is given up on). */
    private long trimmableSeq;
    /** The log holds every write above this seq (and none at or below it, once trimmed). */
    private long trimmedSeq;
    /** The highest seq searches see: lastSeq at the last refresh. */
    private long visibleSeq;
    private boolean refreshed = true;
    /** The newest reader; this object holds one reference of its own to it. */
    private DirectoryReader reader;

    private LivePartition(int partition, IndexContext context, FSDirectory directory, IndexWriter writer,
            WriteLog log, Consumer<PartitionSearcher> publish) {
        this.partition = partition;
        this.context = context;
        this.mapper = new DocumentMapper(context.manifest().config());
        this.checks = new OpChecks(mapper);
        this.directory = directory;
        this.writer = writer;
        this.log = log;
        this.publish = publish;
    }

    /**
     * Opens the partition's live copy in {@code dir}, making it from {@code source} (the build's
     * partition) when there is none yet, replays the log above the last commit, and publishes a
     * searcher on the result.
     */
    static LivePartition open(IndexContext context, int partition, Path dir, Path source,
            Consumer<PartitionSearcher> publish) throws IOException {
        Path index = dir.resolve(INDEX_DIR);
        if (!Files.isDirectory(index)) {
            LiveCopies.linkOrCopy(source, dir, index);
        }
        FSDirectory directory = FSDirectory.open(index);
        IndexWriter writer = null;
        WriteLog log = null;
        try {
            writer = new IndexWriter(directory, new IndexWriterConfig(context.analyzer())
                    .setOpenMode(IndexWriterConfig.OpenMode.APPEND)
                    .setCodec(new HedgerowCodec())
                    .setCommitOnClose(false));
            List<WriteOp> logged = new ArrayList<>();
            log = WriteLog.open(dir.resolve(LOG_FILE), logged);
            LivePartition live = new LivePartition(partition, context, directory, writer, log, publish);
            live.recover(logged);
            return live;
        } catch (IOException | RuntimeException e) {
            closeAll(log, writer, directory, e);
            throw e;
        }
    }

    private static void closeAll(WriteLog log, IndexWriter writer, FSDirectory directory, Exception failure) {
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
        String committed = writer.getLiveCommitData() == null ? null : commitData().get(COMMIT_SEQ);
        committedSeq = committed == null ? 0 : Long.parseLong(committed);
        lastSeq = committedSeq;
        for (WriteOp op : logged) {
            if (op.getSeq() > committedSeq) {
                apply(op);
            }
            lastSeq = Math.max(lastSeq, op.getSeq());
        }
        recent.clear();
        visibleSeq = lastSeq;
        // A trimmed log starts above what was dropped; an empty one may have dropped up to the commit.
        trimmedSeq = logged.isEmpty() ? committedSeq : logged.get(0).getSeq() - 1;
        reader = DirectoryReader.open(writer);
        reader.incRef();
        publish.accept(PartitionSearcher.of(context, partition, reader));
    }

    private Map<String, String> commitData() {
        Map<String, String> data = new LinkedHashMap<>();
        writer.getLiveCommitData().forEach(entry -> data.put(entry.getKey(), entry.getValue()));
        return data;
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
     * expected version) and numbers the ones that pass; as replica, takes the ones above
     * {@code lastSeq}. Then logs and syncs them, applies them, and answers one result per op.
     *
     * @throws IOException when the log cannot be written or synced: nothing of the batch is applied
     */
    synchronized List<WriteResult> write(List<WriteOp> ops, boolean primary) throws IOException {
        List<WriteResult> results = new ArrayList<>(ops.size());
        List<WriteOp> accepted = new ArrayList<>(ops.size());
        long seqBefore = lastSeq;
        // Versions as this batch changes them, so two ops on one id in a batch see each other.
        Map<String, Long> batchVersions = new HashMap<>();
        for (WriteOp op : ops) {
            if (!primary) {
                if (op.getSeq() > lastSeq + 1) {
                    // A gap: this replica missed writes (it was down, or another root wrote meanwhile).
                    lastSeq = seqBefore;
                    throw new IOException(BEHIND + lastSeq + " and was sent seq " + op.getSeq()
                            + " (expected: at most " + (lastSeq + 1) + "); it must catch up from the log first");
                }
                if (op.getSeq() > lastSeq) {
                    lastSeq = op.getSeq();
                    accepted.add(op);
                }
                results.add(WriteResult.newBuilder().setOutcome(WriteOutcome.UPDATED).setSeq(op.getSeq()).build());
                continue;
            }
            long current = batchVersions.containsKey(op.getId()) ? batchVersions.get(op.getId()) : version(op.getId());
            WriteResult refused = checks.check(op, current);
            if (refused != null) {
                results.add(refused);
                continue;
            }
            long seq = ++lastSeq;
            accepted.add(op.toBuilder().setSeq(seq).build());
            batchVersions.put(op.getId(), op.getKind() == WriteKind.DELETE ? -1L : seq);
            WriteOutcome outcome = op.getKind() == WriteKind.DELETE ? WriteOutcome.DELETED
                    : current < 0 ? WriteOutcome.CREATED : WriteOutcome.UPDATED;
            results.add(WriteResult.newBuilder().setOutcome(outcome).setSeq(seq).setVersion(seq).build());
        }
        if (!accepted.isEmpty()) {
            try {
                log.append(accepted);
                log.sync();
            } catch (IOException | RuntimeException e) {
                lastSeq = seqBefore;
                throw new IOException("partition " + partition + ": cannot log " + accepted.size()
                        + " writes durably (" + e.getMessage() + "); none was applied", e);
            }
            for (WriteOp op : accepted) {
                apply(op);
            }
        }
        return results;
    }

    private void apply(WriteOp op) throws IOException {
        Term id = new Term(IndexConfig.ID_FIELD, op.getId());
        if (op.getKind() == WriteKind.DELETE) {
            writer.deleteDocuments(id);
            recent.put(op.getId(), -op.getSeq());
        } else {
            Document doc = mapper.toDocument(op.getId(), OpChecks.fieldsOf(op));
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
        if (committedSeq == lastSeq) {
            return;
        }
        long covered = lastSeq;
        writer.setLiveCommitData(Map.of(COMMIT_SEQ, Long.toString(covered)).entrySet());
        writer.commit();
        committedSeq = covered;
    }

    /**
     * The logged writes above {@code fromSeq}, for a replica catching up.
     *
     * @throws IOException when some of them were trimmed from the log: the replica cannot catch up
     *                     from it (file-based recovery is not built), and never gets a log with a hole
     */
    synchronized List<WriteOp> logFrom(long fromSeq) throws IOException {
        if (fromSeq >= lastSeq) {
            return List.of();
        }
        if (fromSeq < trimmedSeq) {
            throw new IOException(TRIMMED + "partition " + partition + " keeps writes above seq " + trimmedSeq
                    + " and the replica needs them from seq " + (fromSeq + 1) + "; a replica this far behind cannot"
                    + " catch up from the log (file-based recovery is not built): rebuild its copy");
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
        trimmableSeq = Math.max(trimmableSeq, seq);
    }

    /**
     * Drops the log's records at or below both the last Lucene commit (this replica no longer needs
     * them to recover) and the seq every replica holds (no replica needs them to catch up).
     *
     * @return how many records were dropped
     */
    synchronized int trimLog() throws IOException {
        long below = Math.min(committedSeq, trimmableSeq);
        if (below <= trimmedSeq) {
            return 0;
        }
        int dropped = log.trim(below);
        trimmedSeq = below;
        return dropped;
    }

    /** The log holds every write above this seq. */
    synchronized long trimmedSeq() {
        return trimmedSeq;
    }

    /** Commits and closes; the published searcher stays until its server closes it. */
    @Override
    public synchronized void close() throws IOException {
        try {
            commit();
        } finally {
            reader.decRef();
            closeAll(log, writer, directory, new IOException("closing partition " + partition));
        }
    }
}
