package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.SnapshotFile;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;

/**
 * The copying side of peer recovery: pulls the files of another leaf's snapshot into a staging
 * directory of this leaf, for {@link LiveWrites} to swap in as the partition's copy (as
 * Elasticsearch's peer recovery copies a commit's files, kept small). What makes it resumable is the
 * staging directory, which outlives a failed attempt: a file already there whole and with the
 * listed checksum is kept, a shorter one is continued from its length, and one this copy's current
 * index holds with the same name, length and checksum (the build's files, which every copy shares)
 * is linked instead of fetched. Each file is checked against the checksum the source listed (and
 * its own Lucene footer) once whole: a corrupt one is deleted and the copy refused.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one pull per staging directory at a time
 * ({@link LiveWrites} runs one restore per partition). It blocks on the network (the session), so
 * it runs on the leaf's recovery thread. When it returns, every file is synced, and the staging
 * directory holds exactly the snapshot's files and is synced too.
 */
final class PeerRecovery {
    private static final System.Logger LOG = System.getLogger(PeerRecovery.class.getName());

    /** What a pull did. */
    record Pulled(int files, int kept, int linked, long bytesFetched) {
    }

    private final PeerFiles.Session session;
    private final WalFiles files;

    PeerRecovery(PeerFiles.Session session, WalFiles files) {
        this.session = session;
        this.files = files;
    }

    /**
     * Pulls snapshot {@code name} of {@code partition} into {@code staging}, reusing what it holds
     * and what {@code current} (this copy's index directory, absent or not) holds.
     */
    Pulled pull(int partition, String name, Path staging, Path current) throws IOException {
        WriteResponse listed = call(request(partition, name, WriteKind.LIST_SNAPSHOT), "listing snapshot " + name);
        Map<String, SnapshotFile> wanted = new LinkedHashMap<>();
        for (SnapshotFile file : listed.getSnapshotFilesList()) {
            if (!SnapshotFiles.FILE_NAME.matcher(file.getName()).matches()) {
                throw new IOException("snapshot " + name + " lists file '" + file.getName()
                        + "' (expected: a plain file name)");
            }
            wanted.put(file.getName(), file);
        }
        if (wanted.isEmpty()) {
            throw new IOException("snapshot " + name + " lists no files (expected: a Lucene commit's files)");
        }
        LiveCopies.createDirectories(staging, files);
        try (Stream<Path> held = Files.list(staging)) {
            for (Path stray : (Iterable<Path>) held::iterator) {
                if (!wanted.containsKey(stray.getFileName().toString())) {
                    Files.delete(stray); // an earlier snapshot's, not this one's
                }
            }
        }
        int kept = 0;
        int linked = 0;
        long fetched = 0;
        for (SnapshotFile file : wanted.values()) {
            Path local = staging.resolve(file.getName());
            long have = Files.exists(local) ? Files.size(local) : -1;
            if (have == file.getLength()) {
                if (checksumOrMinusOne(staging, file.getName()) == file.getChecksum()) {
                    kept++;
                    continue;
                }
                have = -1;
            } else if (have > file.getLength()) {
                have = -1;
            }
            if (have < 0) {
                Files.deleteIfExists(local);
                if (linkFromCurrent(file, current, local)) {
                    linked++;
                    continue;
                }
            }
            fetched += fetch(partition, name, file, local, Math.max(have, 0));
            long checksum = checksumOrMinusOne(staging, file.getName());
            if (checksum != file.getChecksum()) {
                Files.deleteIfExists(local);
                throw new IOException("file " + file.getName() + " of snapshot " + name + " arrived corrupt: checksum "
                        + (checksum < 0 ? "does not match its Lucene footer" : Long.toHexString(checksum))
                        + " (expected: " + Long.toHexString(file.getChecksum()) + "); deleted, the copy is refused");
            }
        }
        files.syncDirectory(staging);
        Pulled pulled = new Pulled(wanted.size(), kept, linked, fetched);
        LOG.log(System.Logger.Level.INFO, "partition {0}: snapshot {1} pulled into {2}: {3}", partition, name, staging,
                pulled);
        return pulled;
    }

    /**
     * Links the current copy's file when it is the same (name, length, footer checksum). The copy
     * still takes writes meanwhile, so a merge may delete the file under us: then it is fetched.
     */
    private boolean linkFromCurrent(SnapshotFile file, Path current, Path local) throws IOException {
        Path same = current.resolve(file.getName());
        try {
            if (!Files.isRegularFile(same) || Files.size(same) != file.getLength()) {
                return false;
            }
            try (Directory directory = new NIOFSDirectory(current);
                    IndexInput input = directory.openInput(file.getName(), IOContext.READONCE)) {
                if (CodecUtil.retrieveChecksum(input) != file.getChecksum()) {
                    return false;
                }
            }
            try {
                Files.createLink(local, same);
            } catch (IOException | UnsupportedOperationException e) {
                Files.copy(same, local);
                force(local);
            }
            return true;
        } catch (CorruptIndexException | NoSuchFileException e) {
            Files.deleteIfExists(local);
            return false;
        }
    }

    /** Fetches {@code file} from byte {@code from} to its end, then syncs it; answers the bytes fetched. */
    private long fetch(int partition, String name, SnapshotFile file, Path local, long from) throws IOException {
        long offset = from;
        try (FileChannel out = FileChannel.open(local, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            out.truncate(from);
            while (offset < file.getLength()) {
                WriteResponse chunk = call(request(partition, name, WriteKind.READ_SNAPSHOT_FILE).toBuilder()
                        .setFileName(file.getName()).setFileOffset(offset).setMaxChunkBytes(SnapshotFiles.MAX_CHUNK_BYTES)
                        .build(), "reading " + file.getName() + " of snapshot " + name + " from byte " + offset);
                if (chunk.getFileLength() != file.getLength() || chunk.getFileChecksum() != file.getChecksum()
                        || chunk.getChunk().isEmpty() || offset + chunk.getChunk().size() > file.getLength()) {
                    throw new IOException("file " + file.getName() + " of snapshot " + name + " answered "
                            + chunk.getChunk().size() + " bytes at " + offset + " of a file of " + chunk.getFileLength()
                            + " bytes, checksum " + Long.toHexString(chunk.getFileChecksum()) + " (expected: up to "
                            + (file.getLength() - offset) + " bytes of the listed file of " + file.getLength()
                            + " bytes, checksum " + Long.toHexString(file.getChecksum()) + ")");
                }
                ByteBuffer bytes = chunk.getChunk().asReadOnlyByteBuffer();
                while (bytes.hasRemaining()) {
                    offset += out.write(bytes, offset);
                }
            }
            out.force(true);
        }
        return offset - from;
    }

    /** The file's CRC32 as computed over its bytes, or -1 when it does not match its own Lucene footer. */
    private static long checksumOrMinusOne(Path dir, String name) throws IOException {
        try (Directory directory = new NIOFSDirectory(dir);
                IndexInput input = directory.openInput(name, IOContext.READONCE)) {
            return CodecUtil.checksumEntireFile(input);
        } catch (CorruptIndexException | EOFException e) {
            return -1;
        }
    }

    private static void force(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    private WriteResponse call(WriteRequest request, String what) throws IOException {
        WriteResponse answer = session.call(request);
        if (answer.getStatus() != Status.OK) {
            throw new IOException(what + ": " + answer.getStatus() + ": " + answer.getError());
        }
        return answer;
    }

    private static WriteRequest request(int partition, String name, WriteKind kind) {
        return WriteRequest.newBuilder().setPartition(partition).setSnapshot(name)
                .addOps(WriteOp.newBuilder().setKind(kind)).build();
    }
}
