package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.ReplicaTarget;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;

/**
 * The replicas a primary copy tracks ({@link ReplicationGroup}), kept durably in {@code tracked} in
 * the copy's directory, so a primary restarted within its term still copies every batch to a replica
 * that joined the in-sync set through it: a root whose cached in-sync set predates the join does not
 * name that replica, and only the primary's tracking reaches it. Extra entries are harmless (a copy
 * to a replica that no longer holds the log fails and is reported); a missing one could lose writes.
 *
 * <p>The file is text: the term, then one {@code node address} per line, then the CRC32C of what
 * precedes it; written whole to a temporary file, synced, renamed in and the directory synced. A
 * damaged file refuses the primary's writes (an unknown tracked set could skip a replica).
 *
 * <p><b>Assumptions and guarantees.</b> Stateless; called under the partition's write lock.
 */
final class TrackedFiles {
    static final String FILE = "tracked";
    /** None: nothing kept (tests of the group alone). */
    static final TrackedFiles NONE = new TrackedFiles(partition -> null, WalFiles.SYSTEM);

    private final IntFunction<Path> dirs;
    private final WalFiles files;

    /** @param dirs each partition's copy directory (null: keep nothing) */
    TrackedFiles(IntFunction<Path> dirs, WalFiles files) {
        this.dirs = dirs;
        this.files = files;
    }

    /** The replicas tracked in {@code term}, as last stored; none when another term's, or none stored. */
    List<ReplicaTarget> load(int partition, long term) throws IOException {
        Path dir = dirs.apply(partition);
        Path file = dir == null ? null : dir.resolve(FILE);
        if (file == null || !Files.exists(file)) {
            return List.of();
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 2 || !lines.get(lines.size() - 1).equals(checksum(lines.subList(0, lines.size() - 1)))) {
            throw new IOException("tracked replicas file " + file + " is corrupt (expected: a term, node-address lines"
                    + " and their checksum): this copy's tracked replicas are unknown, so it takes no writes as"
                    + " primary; delete the file only once every root has read the stored in-sync set");
        }
        if (Long.parseLong(lines.get(0)) != term) {
            return List.of();
        }
        List<ReplicaTarget> targets = new ArrayList<>();
        for (String line : lines.subList(1, lines.size() - 1)) {
            int space = line.indexOf(' ');
            targets.add(ReplicaTarget.newBuilder().setNode(line.substring(0, space))
                    .setAddress(line.substring(space + 1)).build());
        }
        return targets;
    }

    void store(int partition, long term, List<ReplicaTarget> targets) throws IOException {
        Path dir = dirs.apply(partition);
        if (dir == null) {
            return;
        }
        List<String> lines = new ArrayList<>();
        lines.add(Long.toString(term));
        for (ReplicaTarget target : targets) {
            lines.add(target.getNode() + " " + target.getAddress());
        }
        lines.add(checksum(lines));
        LiveCopies.createDirectories(dir, files);
        files.replaceDurably(dir.resolve(FILE),
                ByteBuffer.wrap((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    private static String checksum(List<String> lines) {
        CRC32C crc = new CRC32C();
        crc.update((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        return Long.toHexString(crc.getValue());
    }
}
