package io.hedgerow.root.local;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The folder where a local cluster keeps its pid files ({@code root.pid}, {@code leaf-0.pid}...),
 * port files and leaf logs, so that {@code hedgerow local stop} can find and stop a cluster
 * started from another terminal.
 */
public record RunDirectory(Path dir) {

    /** The root's admin token, written by {@code local} for the load generator's fault runner. */
    public Path adminTokenFile() {
        return dir.resolve("admin-token");
    }

    /** The root's write token, written by {@code local}: writes to {@code /documents} carry it. */
    public Path writeTokenFile() {
        return dir.resolve("write-token");
    }

    /**
     * The ports a cluster with a coordination store gave its leaves, one line each ({@code <leaf> <port>}):
     * the next {@code local} on this run directory starts them on the same ports, as the stored in-sync
     * sets name copies by address. Kept when the pid and port files are deleted.
     */
    public Path leafPortsFile() {
        return dir.resolve("leaf-ports");
    }

    /** The ports {@link #leafPortsFile} keeps, by leaf; empty when there is no such file. */
    public java.util.Map<Integer, Integer> keptLeafPorts() throws IOException {
        java.util.Map<Integer, Integer> ports = new java.util.TreeMap<>();
        if (!Files.exists(leafPortsFile())) {
            return ports;
        }
        for (String line : Files.readAllLines(leafPortsFile())) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length != 2 || !fields[0].matches("[0-9]+") || !fields[1].matches("[0-9]{1,5}")) {
                throw new IOException(leafPortsFile() + ": line '" + line + "' (expected: <leaf> <port>)");
            }
            ports.put(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]));
        }
        return ports;
    }

    /** Writes {@link #leafPortsFile} atomically. */
    public void keepLeafPorts(java.util.Map<Integer, Integer> ports) throws IOException {
        StringBuilder text = new StringBuilder();
        ports.forEach((leaf, port) -> text.append(leaf).append(' ').append(port).append('\n'));
        Path tmp = dir.resolve("leaf-ports.tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, leafPortsFile(), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The port the embedded ZooKeeper listened on when {@code local} chose a free one: the next
     * {@code local} on this run directory asks for it again while it is free, so it never lands on a
     * port {@link #leafPortsFile} keeps for a leaf. Kept when the pid and port files are deleted.
     */
    public Path zooKeeperPortFile() {
        return dir.resolve("zk-port");
    }

    /** The port {@link #zooKeeperPortFile} keeps; empty when there is none (or it is unreadable: a new one is chosen). */
    public java.util.OptionalInt keptZooKeeperPort() {
        try {
            String text = Files.readString(zooKeeperPortFile()).strip();
            return text.matches("[0-9]{1,5}") && Integer.parseInt(text) > 0 && Integer.parseInt(text) <= 65535
                    ? java.util.OptionalInt.of(Integer.parseInt(text)) : java.util.OptionalInt.empty();
        } catch (IOException e) {
            return java.util.OptionalInt.empty();
        }
    }

    /** Writes {@link #zooKeeperPortFile}. */
    public void keepZooKeeperPort(int port) throws IOException {
        Files.writeString(zooKeeperPortFile(), port + "\n");
    }

    public Path pidFile(String process) {
        return dir.resolve(process + ".pid");
    }

    public Path portFile(String process) {
        return dir.resolve(process + ".port");
    }

    public Path logFile(String process) {
        return dir.resolve(process + ".log");
    }

    /** A leaf's term log ({@code leaf --term-log}), read by the durability checker from {@code terms/}. */
    public Path termLogFile(String process) {
        return dir.resolve("terms").resolve(process + ".log");
    }

    public void writePid(String process, long pid) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(pidFile(process), Long.toString(pid) + "\n");
    }

    /** Processes named by pid files here that are still alive, other than this one. */
    public List<ProcessHandle> liveProcesses() throws IOException {
        List<ProcessHandle> live = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return live;
        }
        try (DirectoryStream<Path> pidFiles = Files.newDirectoryStream(dir, "*.pid")) {
            for (Path file : pidFiles) {
                readPid(file)
                        .filter(pid -> pid != ProcessHandle.current().pid())
                        .flatMap(ProcessHandle::of)
                        .filter(ProcessHandle::isAlive)
                        .ifPresent(live::add);
            }
        }
        return live;
    }

    /**
     * Throws when a cluster started from this folder is still running, naming its processes: nothing
     * may rebuild or reopen the index under it.
     */
    public void requireNoneRunning() throws IOException {
        List<ProcessHandle> running = liveProcesses();
        if (!running.isEmpty()) {
            StringBuilder pids = new StringBuilder();
            for (ProcessHandle process : running) {
                pids.append(pids.isEmpty() ? "" : ", ").append(process.pid());
            }
            throw new IOException("a local cluster is already running from " + dir + " (pids " + pids
                    + "); stop it with: ./hedgerow local stop");
        }
    }

    /**
     * Stops every live process named here (SIGTERM, then SIGKILL after {@code graceMillis}) and
     * deletes the pid files. An embedded ZooKeeper ({@code zk.pid}) is stopped last, once the others
     * have exited: the root's last changes to the stored state must reach it.
     *
     * @return how many processes were running
     */
    public int stopAll(long graceMillis) throws IOException {
        List<ProcessHandle> live = liveProcesses();
        Optional<Long> zk = readPid(pidFile("zk"));
        List<ProcessHandle> last = new ArrayList<>(live.stream().filter(p -> zk.isPresent() && p.pid() == zk.get()).toList());
        live.removeAll(last);
        // Leaves first, so the root does not log every leaf's departure as a failure.
        live.sort((a, b) -> Boolean.compare(isRoot(a), isRoot(b)));
        stop(live, graceMillis);
        stop(last, graceMillis);
        deletePidFiles();
        return live.size() + last.size();
    }

    private static void stop(List<ProcessHandle> processes, long graceMillis) {
        for (ProcessHandle process : processes) {
            process.destroy();
        }
        for (ProcessHandle process : processes) {
            try {
                process.onExit().get(graceMillis, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                process.destroyForcibly();
            }
        }
    }

    public void deletePidFiles() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{pid,port}")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private boolean isRoot(ProcessHandle process) {
        return readPid(pidFile("root")).map(pid -> pid == process.pid()).orElse(false);
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
