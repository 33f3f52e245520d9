package io.hedgerow.loadgen.durability;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The record of a run, in the order entries were appended: every client's invocations and their
 * completions, and the nemesis's faults. The checker reads only this (and the final reads), so a
 * history written to a file can be checked again, and a unit test can hand it one written by hand.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: clients and the nemesis append concurrently
 * (one lock, held only to add to a list; the history is off every request path of the cluster).
 * {@link #ops()} is a snapshot.
 */
public final class History {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Op> ops = new ArrayList<>();

    public History() {
    }

    /** A history of these entries, e.g. written by hand in a test. */
    public static History of(List<Op> entries) {
        History history = new History();
        entries.forEach(history::add);
        return history;
    }

    public synchronized void add(Op op) {
        ops.add(op);
    }

    public synchronized List<Op> ops() {
        return List.copyOf(ops);
    }

    /** Writes the history as JSON lines, one entry each ({@code history.jsonl} of a run). */
    public void write(Path file) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            for (Op op : ops()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("process", op.process() == Op.NEMESIS ? "nemesis" : op.process());
                entry.put("type", op.type().name().toLowerCase(Locale.ROOT));
                entry.put("f", op.kind().name().toLowerCase(Locale.ROOT));
                entry.put("value", op.id());
                entry.put("time_ms", op.timeNanos() / 1_000_000);
                entry.put("detail", op.detail());
                out.write(JSON.writeValueAsString(entry));
                out.newLine();
            }
        }
    }
}
