package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's write-ahead log: every operation a leaf acknowledges is here, synced to the
 * disk ({@code fsync}), before the acknowledgement leaves.
 *
 * <p><b>Format (version 2).</b> A file header (magic, version, generation), then records
 * ({@link WalRecords}: length, CRC32C, operation). A log of version 1 (no file header; a CRC of the
 * bytes alone) is rewritten as version 2 when opened.
 *
 * <p><b>Failure rules.</b> A {@link WalCheckpoint} beside the log records the offset up to which it
 * was synced; it is rewritten after every sync, before anything is acknowledged. Opening reads
 * every record below that offset and refuses to open, naming the file and the offset, when one
 * of them is damaged (they are acknowledged writes: cutting them off would lose them silently);
 * what lies beyond it was never acknowledged and is cut off, whole or torn. Any I/O error while
 * appending, syncing, checkpointing or trimming fails the log: it refuses everything from then on
 * ({@link #failure}), so a seq whose record may be on the disk is never given out again, until the
 * copy is opened again (recovery then drops whatever lies beyond the checkpoint) or rebuilt.
 *
 * <p>Group commit: {@link #append} writes a whole batch and {@link #sync} makes it durable with one
 * {@code force}, so the cost of an fsync is shared by every operation of the batch (the root sends
 * a partition's writes in batches).
 *
 * <p><b>Trimming.</b> {@link #trim} drops the records at or below a seq by writing the rest to a new
 * file (the next generation), syncing it and renaming it over the log, then syncing the directory
 * and checkpointing: a crash leaves either the old log or the new one whole, never a mix (a new one
 * with no checkpoint of its generation yet was synced whole before its rename).
 *
 * <p><b>Metrics.</b> It tells its {@link WalMeters} what it appends, syncs (and how long that
 * took), holds, trims and read back at opening, and the I/O errors that failed it: once per batch.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link LivePartition} calls it under
 * its own lock.
 */
final class WriteLog implements Closeable {
    static final int MAGIC = 0x48524C47; // "HRLG"
    static final int VERSION = 2;
    static final int FILE_HEADER_BYTES = 16;

    private final WalFiles files;
    private final Path file;
    private final Path checkpointFile;
    private FileChannel channel;
    private long generation;
    /** Where the records synced and checkpointed end: everything acknowledged lies below. */
    private long end;
    /** Where the records appended end (the next append goes here); above {@link #end} until a sync. */
    private long written;
    /** The I/O error that failed this log; null while it is usable. */
    private IOException failure;
    /** Where each record starts, by seq, so a catch-up read seeks to its first record rather than scan. */
    private SeqRing offsets;
    private WalMeters meters = WalMeters.NONE;
    /** The records below {@link #end} (synced), and those appended since the last sync. */
    private long records;
    private long pending;
    private boolean closed;
    /** The checkpoint file, open for writing once it exists: rewritten in place after every sync. */
    private FileChannel checkpointChannel;

    private WriteLog(WalFiles files, Path file, FileChannel channel, long generation, long end, SeqRing offsets) {
        this.files = files;
        this.file = file;
        this.checkpointFile = checkpointOf(file);
        this.channel = channel;
        this.generation = generation;
        this.end = end;
        this.written = end;
        this.offsets = offsets;
    }

    static Path checkpointOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".checkpoint");
    }

    static WriteLog open(Path file, List<WriteOp> replayed) throws IOException {
        return open(WalFiles.SYSTEM, file, replayed, WalMeters.NONE);
    }

    static WriteLog open(WalFiles files, Path file, List<WriteOp> replayed) throws IOException {
        return open(files, file, replayed, WalMeters.NONE);
    }

    /** As {@link #open(WalFiles, Path, List)}, telling {@code meters} what it reads back, holds and does. */
    static WriteLog open(WalFiles files, Path file, List<WriteOp> replayed, WalMeters meters) throws IOException {
        int before = replayed.size();
        WriteLog log = openLog(files, file, replayed);
        log.meters = meters;
        log.records = replayed.size() - before;
        meters.replayed((int) log.records);
        meters.held(log.records, log.end - FILE_HEADER_BYTES);
        return log;
    }

    /**
     * Opens (or creates) the log and reads every record below its checkpoint into {@code replayed},
     * in order, cutting off whatever lies beyond it.
     *
     * @throws IOException when a record below the checkpoint is damaged, or the log and its
     *                     checkpoint disagree: the message names the file, the offset and how to rebuild
     */
    private static WriteLog openLog(WalFiles files, Path file, List<WriteOp> replayed) throws IOException {
        WalCheckpoint checkpoint = WalCheckpoint.read(checkpointOf(file));
        if (!Files.exists(file)) {
            if (checkpoint != null) {
                throw refused(file, "is missing, but its checkpoint says " + checkpoint.syncedOffset()
                        + " bytes of it were synced");
            }
            return create(files, file);
        }
        FileChannel channel = files.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = channel.size();
            ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_BYTES);
            WalRecords.readFully(channel, header, 0);
            if (size >= 4 && header.getInt(0) != MAGIC) {
                channel.close();
                return migrate(files, file, replayed);
            }
            if (size < FILE_HEADER_BYTES) {
                if (checkpoint != null) {
                    throw refused(file, "is " + size + " bytes long, shorter than its header, but has a checkpoint");
                }
                // A creation a crash cut short, before its checkpoint: nothing was ever written to it.
                channel.close();
                Files.delete(file);
                return create(files, file);
            }
            int version = header.getInt(4);
            long generation = header.getLong(8);
            if (version != VERSION) {
                throw refused(file, "has format version " + version + " (expected: " + VERSION + ")");
            }
            long synced;
            if (checkpoint == null) {
                if (size > FILE_HEADER_BYTES) {
                    throw refused(file, "holds " + (size - FILE_HEADER_BYTES) + " bytes of records but has no checkpoint "
                            + checkpointOf(file) + ", so which of them were acknowledged is unknown");
                }
                synced = FILE_HEADER_BYTES; // created, then a crash before its first checkpoint
            } else if (checkpoint.generation() == generation) {
                synced = checkpoint.syncedOffset();
                if (size < synced) {
                    throw refused(file, "is " + size + " bytes long, but its checkpoint says " + synced
                            + " bytes were synced: acknowledged writes are missing");
                }
            } else if (generation == checkpoint.generation() + 1) {
                synced = size; // a trim's new log, renamed in before its checkpoint: synced whole before that
            } else {
                throw refused(file, "is generation " + generation + " but its checkpoint is of generation "
                        + checkpoint.generation());
            }
            SeqRing offsets = new SeqRing();
            WalRecords.read(file, channel, FILE_HEADER_BYTES, synced, 0, Long.MAX_VALUE, replayed, offsets);
            if (size > synced) {
                // Never acknowledged (a batch whose sync or checkpoint did not complete): cut off.
                channel.truncate(synced);
                channel.force(true);
            }
            WriteLog log = new WriteLog(files, file, channel, generation, synced, offsets);
            if (checkpoint == null || checkpoint.generation() != generation) {
                log.checkpoint();
            }
            return log;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A new, empty log of generation 1: its header synced, its directory entry synced, checkpointed. */
    private static WriteLog create(WalFiles files, Path file) throws IOException {
        FileChannel channel = files.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            WalRecords.writeFully(channel, fileHeader(1), 0);
            channel.force(true);
            files.syncDirectory(file.getParent());
            WriteLog log = new WriteLog(files, file, channel, 1, FILE_HEADER_BYTES, new SeqRing());
            log.checkpoint();
            return log;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Reads a log of version 1 ({@link WalRecords#readVersion1}) and rewrites it as version 2. */
    private static WriteLog migrate(WalFiles files, Path file, List<WriteOp> replayed) throws IOException {
        List<WriteOp> ops = WalRecords.readVersion1(files, file);
        Path next = file.resolveSibling(file.getFileName() + ".v2");
        Files.deleteIfExists(next);
        FileChannel channel = writeGeneration(files, next, 1, ops);
        try {
            // Checkpoint first: a crash before the rename leaves the old log, which is migrated again.
            new WalCheckpoint(1, channel.size()).write(files, checkpointOf(file));
            files.move(next, file);
            files.syncDirectory(file.getParent());
            replayed.addAll(ops);
            return new WriteLog(files, file, channel, 1, channel.size(), offsetsOf(ops));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Writes a whole log file of {@code generation} holding {@code ops} and syncs it; returns it open. */
    private static FileChannel writeGeneration(WalFiles files, Path path, long generation, List<WriteOp> ops)
            throws IOException {
        FileChannel channel = files.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            WalRecords.writeFully(channel, fileHeader(generation), 0);
            if (!ops.isEmpty()) {
                WalRecords.writeFully(channel, WalRecords.encode(ops), FILE_HEADER_BYTES);
            }
            channel.force(true);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Where each of {@code ops} starts in a log file that holds exactly them. */
    private static SeqRing offsetsOf(List<WriteOp> ops) {
        SeqRing offsets = new SeqRing();
        long at = FILE_HEADER_BYTES;
        for (WriteOp op : ops) {
            offsets.add(op.getSeq(), at);
            at += WalRecords.size(op);
        }
        return offsets;
    }

    static IOException refused(Path file, String what) {
        return new IOException("write-ahead log " + file + " " + what + ": it is not opened, as it may hold"
                + " acknowledged writes; rebuild this copy (stop the leaf, delete " + file.getParent()
                + ", start it again: the root restores it from another replica)");
    }

    private static ByteBuffer fileHeader(long generation) {
        return ByteBuffer.allocate(FILE_HEADER_BYTES).putInt(MAGIC).putInt(VERSION).putLong(generation).flip();
    }

    /** The I/O error that failed this log, or null while it takes writes. */
    IOException failure() {
        return failure;
    }

    private void requireUsable() throws IOException {
        if (failure != null) {
            throw new IOException("write-ahead log " + file + " failed earlier (" + failure.getMessage()
                    + "): this copy takes no more writes until it is opened again or rebuilt", failure);
        }
    }

    /** Remembers the first I/O error: from now on the log refuses everything. */
    private IOException fail(Exception e) {
        IOException cause = e instanceof IOException io ? io : new IOException(e);
        if (failure == null) {
            failure = cause;
        }
        meters.failed();
        return cause;
    }

    /** Writes the operations at the end of the log; not durable (nor read back) until {@link #sync}. */
    void append(List<WriteOp> ops) throws IOException {
        requireUsable();
        ByteBuffer buffer = WalRecords.encode(ops);
        try {
            long at = written;
            WalRecords.writeFully(channel, buffer, at);
            written = at + buffer.limit();
            for (WriteOp op : ops) {
                offsets.add(op.getSeq(), at);
                at += WalRecords.size(op);
            }
            pending += ops.size();
            meters.appended(ops.size(), buffer.limit());
        } catch (IOException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Makes everything appended durable, then records that in the checkpoint. */
    void sync() throws IOException {
        requireUsable();
        try {
            long started = System.nanoTime();
            channel.force(false);
            long synced = end;
            end = written;
            try {
                checkpoint();
            } catch (IOException | RuntimeException e) {
                end = synced;
                throw e;
            }
            meters.synced(System.nanoTime() - started);
            meters.held(pending, end - synced);
            records += pending;
            pending = 0;
        } catch (IOException | RuntimeException e) {
            throw fail(e);
        }
    }

    private void checkpoint() throws IOException {
        WalCheckpoint checkpoint = new WalCheckpoint(generation, end);
        if (checkpointChannel == null) {
            // Opened once (or, the first time, created whole and opened at the next one), not per sync.
            checkpointChannel = checkpoint.writeKeepingOpen(files, checkpointFile);
        } else {
            checkpoint.writeTo(checkpointChannel);
        }
    }

    /** The synced operations with a seq above {@code fromSeq}, in order. */
    List<WriteOp> readFrom(long fromSeq) throws IOException {
        return readFrom(fromSeq, Long.MAX_VALUE);
    }

    /**
     * The synced operations with a seq above {@code fromSeq}, in order, up to {@code maxBytes} of
     * encoded operations (at least one, however large), so an answer fits in a frame; the caller
     * asks again from the last one it got.
     */
    List<WriteOp> readFrom(long fromSeq, long maxBytes) throws IOException {
        requireUsable();
        List<WriteOp> ops = new ArrayList<>();
        // Seek to the first record wanted when its place is known; else read from the start.
        long from = fromSeq < Long.MAX_VALUE && offsets.holds(fromSeq + 1) ? offsets.get(fromSeq + 1) : FILE_HEADER_BYTES;
        WalRecords.read(file, channel, from, end, fromSeq, maxBytes, ops, null);
        return ops;
    }

    /**
     * Drops every record with a seq at or below {@code seq}.
     *
     * @return how many were dropped
     */
    int trim(long seq) throws IOException {
        requireUsable();
        List<WriteOp> all = new ArrayList<>();
        WalRecords.read(file, channel, FILE_HEADER_BYTES, end, Long.MIN_VALUE, Long.MAX_VALUE, all, null);
        List<WriteOp> kept = all.stream().filter(op -> op.getSeq() > seq).toList();
        if (kept.size() == all.size()) {
            return 0;
        }
        Path next = file.resolveSibling(file.getFileName() + ".trimmed");
        try {
            Files.deleteIfExists(next);
            FileChannel trimmed = writeGeneration(files, next, generation + 1, kept);
            try {
                files.move(next, file);
            } catch (IOException | RuntimeException e) {
                trimmed.close();
                throw e;
            }
            // The new file is the log from here on, whatever the directory sync says.
            channel.close();
            channel = trimmed;
            generation++;
            long before = end;
            end = channel.size();
            written = end;
            offsets = offsetsOf(kept);
            meters.held(kept.size() - records, end - before);
            records = kept.size();
            pending = 0;
            files.syncDirectory(file.getParent());
            checkpoint();
        } catch (IOException | RuntimeException e) {
            throw fail(e);
        }
        meters.trimmed(all.size() - kept.size());
        return all.size() - kept.size();
    }

    Path file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            meters.held(-records, -(end - FILE_HEADER_BYTES));
        }
        try {
            channel.close();
        } finally {
            if (checkpointChannel != null) {
                checkpointChannel.close();
            }
        }
    }
}
