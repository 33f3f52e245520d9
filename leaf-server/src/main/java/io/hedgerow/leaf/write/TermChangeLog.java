package io.hedgerow.leaf.write;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A leaf's term log ({@code leaf --term-log FILE}): one line appended each time a copy of this leaf
 * accepts a primary term it was not told of before, or is told of another primary for a term, in
 * the format the durability checker reads ({@code io.hedgerow.loadgen.durability.TermLog}):
 * <pre>
 * 2026-11-28T06:41:07.512Z 3 7 10.0.0.5_4001
 * </pre>
 * the time (ISO-8601, UTC), the partition, the term, and the primary the root named with that term
 * ({@code WriteRequest.primary_node}). Two leaves (or one) told of different primaries for one term
 * is a split term: two roots, or two states of the coordination store, each believed it led.
 *
 * <p>Not on the search path, and on the write path only when a copy is told something new (a
 * promotion: rare): each line is written and flushed at once, so a leaf killed afterwards has
 * logged it. A failure to write is logged and does not fail the write that carried the term (the
 * log is evidence for a checker, not part of the copy's state).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; called by the write threads, never an event
 * loop (it blocks on the file). The common case, a term and primary already logged for the
 * partition, is a lock-free map read; appending holds this object's monitor.
 */
final class TermChangeLog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TermChangeLog.class.getName());
    /** The log of a leaf started without {@code --term-log}: logs nothing. */
    static final TermChangeLog OFF = new TermChangeLog(null, null, null);

    private record Told(long term, String primary) {
    }

    private final Path file;
    private final Writer out;
    private final InstantSource clock;
    /** What each partition was last told, by the highest term logged. */
    private final Map<Integer, Told> last = new ConcurrentHashMap<>();
    private boolean failed;

    private TermChangeLog(Path file, Writer out, InstantSource clock) {
        this.file = file;
        this.out = out;
        this.clock = clock;
    }

    /** Appends to {@code file} (made, with its directory, if missing); null: {@link #OFF}. */
    static TermChangeLog open(Path file, InstantSource clock) throws IOException {
        if (file == null) {
            return OFF;
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        boolean fresh = !Files.exists(file) || Files.size(file) == 0;
        Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        if (fresh) {
            out.write("# time partition term primary\n");
            out.flush();
        }
        return new TermChangeLog(file, out, clock);
    }

    /**
     * Notes that the copy of {@code partition} accepted {@code term} with {@code primary} as its
     * primary; appends a line unless that is what the partition was last told. An empty or null
     * {@code primary} (a root that does not say) and term 0 (no term) are not logged.
     */
    void told(int partition, long term, String primary) {
        if (out == null || term <= 0 || primary == null || primary.isEmpty()) {
            return;
        }
        Told now = new Told(term, primary);
        if (now.equals(last.get(partition))) {
            return;
        }
        append(partition, now);
    }

    private synchronized void append(int partition, Told now) {
        Told before = last.get(partition);
        if (now.equals(before)) {
            return;
        }
        if (before == null || now.term() >= before.term()) {
            last.put(partition, now);
        }
        try {
            out.write(clock.instant() + " " + partition + " " + now.term() + " " + now.primary() + "\n");
            out.flush();
        } catch (IOException e) {
            if (!failed) {
                failed = true;
                LOG.log(System.Logger.Level.WARNING, "term log " + file + ": a term change could not be written (the"
                        + " durability checker will miss it)", e);
            }
        }
    }

    @Override
    public synchronized void close() {
        if (out == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "closing term log " + file + " failed", e);
        }
    }
}
