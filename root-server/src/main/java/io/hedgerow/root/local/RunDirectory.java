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

    public Path pidFile(String process) {
        return dir.resolve(process + ".pid");
    }

    public Path portFile(String process) {
        return dir.resolve(process + ".port");
    }

    public Path logFile(String process) {
        return dir.resolve(process + ".log");
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
     * deletes the pid files.
     *
     * @return how many processes were running
     */
    public int stopAll(long graceMillis) throws IOException {
        List<ProcessHandle> live = liveProcesses();
        // Leaves first, so the root does not log every leaf's departure as a failure.
        live.sort((a, b) -> Boolean.compare(isRoot(a), isRoot(b)));
        for (ProcessHandle process : live) {
            process.destroy();
        }
        for (ProcessHandle process : live) {
            try {
                process.onExit().get(graceMillis, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                process.destroyForcibly();
            }
        }
        deletePidFiles();
        return live.size();
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
