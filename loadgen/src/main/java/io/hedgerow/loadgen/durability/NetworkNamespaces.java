package io.hedgerow.loadgen.durability;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Which named network namespace ({@code ip netns}) a process runs in, so that a process killed
 * there is started again there, not in this JVM's namespace ({@code durability.sh --netns} runs
 * ZooKeeper on the root's "host"). Linux only: reads {@code /proc/<pid>/ns/net} and the bind
 * mounts in {@code /var/run/netns}.
 */
final class NetworkNamespaces {
    private static final Path NAMED = Path.of("/var/run/netns");

    private NetworkNamespaces() {
    }

    /**
     * The words to put before a command so it runs in {@code pid}'s network namespace:
     * {@code ip netns exec <name>}, or none when that is this process's own namespace.
     *
     * @throws IOException when it is another namespace that has no name {@code ip netns exec} knows
     */
    static List<String> enterPrefix(long pid) throws IOException {
        String theirs = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")).toString();
        String ours = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        if (theirs.equals(ours)) {
            return List.of();
        }
        String name = nameOf(theirs, NAMED);
        if (name == null) {
            throw new IOException("pid " + pid + " runs in network namespace " + theirs + " (expected: this process's, "
                    + ours + ", or one named in " + NAMED + ")");
        }
        return List.of("ip", "netns", "exec", name);
    }

    /** The name in {@code named} whose inode is the one in {@code link} ({@code net:[4026532281]}); null: none. */
    static String nameOf(String link, Path named) throws IOException {
        if (!link.startsWith("net:[") || !link.endsWith("]")) {
            throw new IOException("network namespace link '" + link + "' (expected: net:[<inode>])");
        }
        long inode = Long.parseLong(link.substring(5, link.length() - 1));
        try (DirectoryStream<Path> names = Files.newDirectoryStream(named)) {
            for (Path file : names) {
                Object ino = Files.getAttribute(file, "unix:ino");
                if (ino instanceof Long value && value == inode) {
                    return file.getFileName().toString();
                }
            }
        } catch (NoSuchFileException e) {
            return null;
        }
        return null;
    }
}
