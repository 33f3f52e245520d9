package io.hedgerow.leaf.write;

import com.google.protobuf.ByteString;
import io.hedgerow.common.wire.proto.SnapshotFile;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;

/**
 * The source side of peer recovery: serves the files of this leaf's snapshots
 * ({@link LivePartition#snapshot}) to another leaf's recovering copy ({@link PeerRecovery}), one
 * {@link Session} per connection. A session lists a snapshot (its files, lengths and Lucene
 * checksums), which pins it ({@link SnapshotPins}) until the session closes, then reads its files
 * in chunks of at most {@link #MAX_CHUNK_BYTES}, well inside a frame.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Every read of a file runs on {@code reads}
 * (never on the event loop that received the request). A snapshot's files never change (hard links
 * to one Lucene commit), so a chunk read at any time belongs to the file that was listed.
 */
public final class SnapshotFiles {
    /** The most bytes of a file one answer carries. */
    static final int MAX_CHUNK_BYTES = 1024 * 1024;
    /** A file of a Lucene commit: a plain name, never a path. */
    static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

    private final SnapshotPaths paths;
    private final SnapshotPins pins;
    private final Executor reads;

    /** Where a snapshot's name leads, checked: a directory under the leaf's snapshots directory. */
    interface SnapshotPaths {
        Path resolve(int partition, String name) throws IOException;
    }

    SnapshotFiles(SnapshotPaths paths, SnapshotPins pins, Executor reads) {
        this.paths = paths;
        this.pins = pins;
        this.reads = reads;
    }

    /** A session for one connection from a recovering copy; close it when the connection closes. */
    public Session open() {
        return new Session();
    }

    /** What one connection listed (and so pinned) and may read. */
    public final class Session implements AutoCloseable {
        private final Set<Path> pinned = new HashSet<>();
        private boolean closed;

        /** Answers a LIST_SNAPSHOT or READ_SNAPSHOT_FILE request on the read thread. */
        public void handle(WriteRequest request, Consumer<WriteResponse> reply) {
            try {
                reads.execute(() -> reply.accept(answer(request)));
            } catch (RejectedExecutionException e) {
                reply.accept(error(request, "this leaf is shutting down"));
            }
        }

        /** Answers on the calling thread. */
        public WriteResponse answer(WriteRequest request) {
            try {
                WriteKind kind = request.getOpsCount() == 1 ? request.getOps(0).getKind() : null;
                Path snapshot = paths.resolve(request.getPartition(), request.getSnapshot());
                if (kind == WriteKind.LIST_SNAPSHOT) {
                    return list(request, snapshot);
                }
                if (kind == WriteKind.READ_SNAPSHOT_FILE) {
                    return read(request, snapshot);
                }
                return error(request, "a " + kind + " request on a peer-recovery connection (expected: "
                        + "LIST_SNAPSHOT or READ_SNAPSHOT_FILE as the only op)");
            } catch (IOException | RuntimeException e) {
                return error(request, String.valueOf(e.getMessage()));
            }
        }

        private WriteResponse list(WriteRequest request, Path snapshot) throws IOException {
            if (!pin(snapshot)) {
                throw new IOException("no snapshot " + request.getSnapshot() + " here (it was dropped for a newer "
                        + "one: ask for a new snapshot)");
            }
            WriteResponse.Builder answer = ok(request);
            try (Directory directory = new NIOFSDirectory(snapshot)) {
                for (String name : names(snapshot)) {
                    try (IndexInput input = directory.openInput(name, IOContext.READONCE)) {
                        answer.addSnapshotFiles(SnapshotFile.newBuilder().setName(name).setLength(input.length())
                                .setChecksum(CodecUtil.retrieveChecksum(input)));
                    }
                }
            }
            return answer.build();
        }

        private WriteResponse read(WriteRequest request, Path snapshot) throws IOException {
            synchronized (this) {
                if (!pinned.contains(snapshot)) {
                    throw new IOException("snapshot " + request.getSnapshot() + " was not listed on this connection "
                            + "(expected: LIST_SNAPSHOT first, which keeps it on disk)");
                }
            }
            String name = request.getFileName();
            if (!FILE_NAME.matcher(name).matches() || !Files.isRegularFile(snapshot.resolve(name))) {
                throw new IOException("file '" + name + "' (expected: a file of snapshot " + request.getSnapshot() + ")");
            }
            int max = request.getMaxChunkBytes() <= 0 ? MAX_CHUNK_BYTES
                    : Math.min(request.getMaxChunkBytes(), MAX_CHUNK_BYTES);
            long checksum;
            long length;
            try (Directory directory = new NIOFSDirectory(snapshot);
                    IndexInput input = directory.openInput(name, IOContext.READONCE)) {
                length = input.length();
                checksum = CodecUtil.retrieveChecksum(input);
            }
            long offset = request.getFileOffset();
            if (offset < 0 || offset > length) {
                throw new IOException("file_offset " + offset + " of " + name + " (expected: 0.." + length + ")");
            }
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(max, length - offset));
            try (FileChannel channel = FileChannel.open(snapshot.resolve(name), StandardOpenOption.READ)) {
                while (chunk.hasRemaining()) {
                    if (channel.read(chunk, offset + chunk.position()) < 0) {
                        throw new IOException(name + " ended at " + (offset + chunk.position()) + " (expected: "
                                + length + " bytes)");
                    }
                }
            }
            chunk.flip();
            return ok(request).setChunk(ByteString.copyFrom(chunk)).setFileLength(length).setFileChecksum(checksum)
                    .build();
        }

        private synchronized boolean pin(Path snapshot) {
            if (closed) {
                return false;
            }
            if (pinned.contains(snapshot)) {
                return true;
            }
            if (!pins.pin(snapshot)) {
                return false;
            }
            pinned.add(snapshot);
            return true;
        }

        /** Unpins what this session listed (the source may drop it now). */
        @Override
        public void close() {
            List<Path> unpin;
            synchronized (this) {
                closed = true;
                unpin = List.copyOf(pinned);
                pinned.clear();
            }
            for (Path snapshot : unpin) {
                try {
                    pins.unpin(snapshot);
                } catch (IOException e) {
                    System.getLogger(SnapshotFiles.class.getName()).log(System.Logger.Level.WARNING,
                            "dropping snapshot " + snapshot + " after a copy failed", e);
                }
            }
        }
    }

    private static List<String> names(Path snapshot) throws IOException {
        try (Stream<Path> listed = Files.list(snapshot)) {
            return listed.filter(Files::isRegularFile).map(file -> file.getFileName().toString()).sorted().toList();
        }
    }

    private static WriteResponse.Builder ok(WriteRequest request) {
        return WriteResponse.newBuilder().setRequestId(request.getRequestId()).setPartition(request.getPartition())
                .setStatus(Status.OK);
    }

    private static WriteResponse error(WriteRequest request, String error) {
        return WriteResponse.newBuilder().setRequestId(request.getRequestId()).setPartition(request.getPartition())
                .setStatus(Status.ERROR).setError(error).build();
    }
}
