package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * The highest primary term each of a leaf's partition copies has accepted (PacificA's fencing): a
 * write request of an older term comes from a root that has not seen a promotion (a deposed primary's
 * era), and is refused, so it can never be acknowledged on this copy. Term 0 is "no term" (a root
 * without a coordination store): neither checked nor recorded.
 *
 * <p><b>Durable before it is relied on.</b> A higher term is written to {@code primary-term} in the
 * copy's directory, beside its write-ahead log and checkpoint, before the request that carries it is
 * served: written whole to a temporary file, synced, renamed in and the directory synced. So a leaf
 * restarted (or killed and restarted) still refuses every term older than one it accepted. The file
 * holds a magic, the term and the CRC32C of both; a damaged one refuses to open the copy's writes
 * (an unknown term could let a deposed primary's writes in).
 *
 * <p><b>Also the terms a copy was primary in.</b> The same record in file {@link #ROLE_FILE} keeps the
 * highest term in which the copy took writes as the partition's primary, written before its first
 * write as primary of that term is numbered: {@link CopyRestores} refuses to rebuild the copy (RESTORE)
 * on a request of that term or an older one, since a primary is rebuilt only after a newer term
 * deposed it.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. A term no higher than the one known is answered
 * from a concurrent map without a lock (every write of a steady term); reading a copy's file and
 * raising its term hold this object's monitor, fsync included, which happens only when the term rises
 * (once per promotion, not per write). A partition's entry only ever rises, so a stale read of it
 * merely takes the locked path.
 */
final class PrimaryTerms {
    static final String FILE = "primary-term";
    /** The file of the highest term the copy was primary in. */
    static final String ROLE_FILE = "primary-role";
    private static final int MAGIC = 0x48525054; // "HRPT"
    private static final int BYTES = 4 + 8 + 4;

    private final WalFiles files;
    private final String fileName;
    /** Each partition's accepted term, once read from its file (0: none). */
    private final Map<Integer, Long> accepted = new ConcurrentHashMap<>();

    PrimaryTerms(WalFiles files) {
        this(files, FILE);
    }

    /** Terms kept in {@code fileName} in each copy's directory ({@link #FILE} or {@link #ROLE_FILE}). */
    PrimaryTerms(WalFiles files, String fileName) {
        this.files = files;
        this.fileName = fileName;
    }

    /**
     * Accepts {@code term} for the copy of {@code partition} in {@code dir}, recording it durably when
     * it is higher than any accepted before.
     *
     * @return the copy's accepted term afterwards: {@code term} or higher; higher means refused
     */
    long accept(int partition, Path dir, long term) throws IOException {
        Long known = accepted.get(partition);
        if (known != null && term <= known) {
            return known;
        }
        return raise(partition, dir, term);
    }

    private synchronized long raise(int partition, Path dir, long term) throws IOException {
        long current = current(partition, dir);
        if (term <= current) {
            return current;
        }
        write(dir, term);
        accepted.put(partition, term);
        return term;
    }

    /** Forgets the copy's term read before: its file was replaced (a restore); read again at next use. */
    synchronized void forget(int partition) {
        accepted.remove(partition);
    }

    /** The copy's recorded term (0: none), read from its file at first use; nothing is written. */
    synchronized long held(int partition, Path dir) throws IOException {
        return current(partition, dir);
    }

    /** The copy's accepted term (0: none); under this object's monitor. */
    private long current(int partition, Path dir) throws IOException {
        Long known = accepted.get(partition);
        if (known == null) {
            known = read(dir.resolve(fileName));
            accepted.put(partition, known);
        }
        return known;
    }

    /**
     * Writes the accepted term into {@code dir} again, its copy's directory made anew by a restore from a
     * snapshot (the old one deleted with its file), before the restored copy is opened.
     */
    synchronized void rewrite(int partition, Path dir) throws IOException {
        Long known = accepted.get(partition);
        if (known != null && known > 0) {
            write(dir, known);
        }
    }

    private void write(Path dir, long term) throws IOException {
        LiveCopies.createDirectories(dir, files);
        ByteBuffer buffer = ByteBuffer.allocate(BYTES).putInt(MAGIC).putLong(term);
        buffer.putInt(checksum(buffer.array()));
        files.replaceDurably(dir.resolve(fileName), buffer.flip());
    }

    private static long read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != BYTES || buffer.getInt(0) != MAGIC || buffer.getInt(BYTES - 4) != checksum(bytes)) {
            throw new IOException("primary term file " + file + " is corrupt (" + bytes.length + " bytes; expected: "
                    + BYTES + " with magic and checksum): the copy's term is unknown, so it takes no writes; rebuild"
                    + " this copy (delete " + file.getParent() + " and let the root catch it up from another replica)");
        }
        return buffer.getLong(4);
    }

    private static int checksum(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, BYTES - 4);
        return (int) crc.getValue();
    }
}
