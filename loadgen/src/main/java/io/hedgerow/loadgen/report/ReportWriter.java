package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Writes a run's results folder, {@code <results>/<yyyyMMdd-HHmmss>-<label>/}:
 * <ul>
 *   <li>{@code report.txt}: the settings and the table of phases, as printed;
 *   <li>{@code summary.json}: every number of the table, more percentiles, error reasons
 *       ({@link RunSummary});
 *   <li>{@code <phase>.hgrm}: each phase's percentile distribution in ms (HdrHistogram's text format);
 *   <li>{@code <phase>.hlog}: each phase's whole histogram (HdrHistogram log), which
 *       {@link RunReader} loads back for {@code loadgen compare};
 *   <li>{@code <phase>-leaves/}: from a root that serves {@code /metrics/leaves}, each leaf's
 *       histograms over the phase as {@code .hgrm} files in ms ({@code leaf-1-search-service.hgrm}:
 *       leaf, phase {@code search} or {@code fetch}, part {@code service}, {@code queue} or
 *       {@code round_trip}), and every leaf's merged ({@code all-search-service.hgrm}): the input
 *       of {@code hedgerow simulate --service empirical:...};
 *   <li>{@code latency.png}: latency by percentile, one curve per phase ({@link LatencyChart}).
 * </ul>
 * The chart is drawn last, so a failure to draw it leaves every number on disk.
 */
public final class ReportWriter {
    static final String SUMMARY = "summary.json";
    static final String REPORT = "report.txt";
    static final String CHART = "latency.png";
    static final String COMPLETE = "complete";
    static final String TAINTED = "tainted";
    static final String ERRORS = "errors";
    static final String LAG = "lag";
    static final String ROOT = "root-";
    static final String REFUSED = "refused";
    static final ObjectWriter JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build()
            .writerFor(RunSummary.class);

    private ReportWriter() {
    }

    /**
     * Writes the run into a new folder under {@code resultsRoot} (created if needed), named after its
     * start time in the system's time zone.
     *
     * @return the folder
     */
    public static Path write(RunResult run, Path resultsRoot) throws IOException {
        return write(run, resultsRoot, ZoneId.systemDefault());
    }

    /** As {@link #write(RunResult, Path)}, naming the folder by the start time in {@code zone}. */
    public static Path write(RunResult run, Path resultsRoot, ZoneId zone) throws IOException {
        Path folder = ResultsFolder.create(resultsRoot, run.startedAt(), zone, run.label());
        ResultsFolder.Names names = new ResultsFolder.Names();
        List<RunSummary.Phase> phases = new ArrayList<>();
        for (PhaseResult phase : run.phases()) {
            String stem = names.next(phase.name());
            HistogramFiles.writePercentiles(phase.latency(), folder.resolve(stem + ".hgrm"));
            HistogramFiles.writeLog(tagged(phase), run.startedAt().toEpochMilli(), phase.durationNanos() / 1e9,
                    "Hedgerow loadgen run '" + run.label() + "', phase '" + phase.name() + "': microseconds; tags: complete,"
                            + " tainted, errors (every request without an answer, refusals included), refused (the"
                            + " refusals among the errors: 503 overloaded or shutting_down) (all from the intended start),"
                            + " lag (intended start to send), root-* (the root's own time, first byte in to last byte out)",
                    folder.resolve(stem + ".hlog"));
            writeLeaves(phase.root().leaves(), folder.resolve(stem + "-leaves"));
            phases.add(RunSummary.Phase.of(phase, stem + ".hlog", stem + ".hgrm"));
        }
        RunSummary summary = new RunSummary(RunSummary.FORMAT, run.label(), run.startedAt().toString(), run.target(),
                run.settings(), run.capacity(), phases);
        Files.writeString(folder.resolve(SUMMARY), JSON.writeValueAsString(summary) + "\n");
        Files.writeString(folder.resolve(REPORT), report(run));
        try {
            LatencyChart.write("Latency by percentile: " + run.label(), curves(run), folder.resolve(CHART));
        } catch (IOException e) {
            throw new IOException(e.getMessage() + "; the other results are in " + folder, e);
        }
        return folder;
    }

    /**
     * Each leaf's histograms of a phase ({@link RootView#leaves}) as {@code .hgrm} files, and each
     * phase and part merged over the leaves as {@code all-<phase>-<part>.hgrm}; nothing when empty.
     */
    static void writeLeaves(Map<String, Histogram> leaves, Path folder) throws IOException {
        if (leaves.isEmpty()) {
            return;
        }
        Files.createDirectories(folder);
        Map<String, Histogram> merged = new LinkedHashMap<>();
        for (Map.Entry<String, Histogram> entry : leaves.entrySet()) {
            String name = ResultsFolder.fileName(entry.getKey());
            HistogramFiles.writePercentiles(entry.getValue(), folder.resolve(name + ".hgrm"));
            String all = "all" + name.substring(name.indexOf('-', "leaf-".length())); // leaf-1-search-service -> all-search-service
            merged.computeIfAbsent(all, k -> new Histogram(entry.getValue().getNumberOfSignificantValueDigits()))
                    .add(entry.getValue());
        }
        for (Map.Entry<String, Histogram> entry : merged.entrySet()) {
            HistogramFiles.writePercentiles(entry.getValue(), folder.resolve(entry.getKey() + ".hgrm"));
        }
    }

    /** The histograms of a phase by tag, as its {@code .hlog} holds them ({@link RunReader} reads them back). */
    static Map<String, Histogram> tagged(PhaseResult phase) {
        Map<String, Histogram> tagged = new LinkedHashMap<>();
        tagged.put(COMPLETE, phase.latencies().complete());
        tagged.put(TAINTED, phase.latencies().tainted());
        // Every failure under "errors", as before refusals had their own histogram, so older readers
        // of the log still count them all; "refused" is the refusals among them.
        tagged.put(ERRORS, phase.latencies().failures());
        tagged.put(REFUSED, phase.latencies().refused());
        tagged.put(LAG, phase.latencies().lag());
        RootView.Latency root = phase.root().latency();
        if (root != null) {
            tagged.put(ROOT + COMPLETE, root.complete());
            tagged.put(ROOT + TAINTED, root.tainted());
            tagged.put(ROOT + ERRORS, root.errors());
            tagged.put(ROOT + REFUSED, root.refused());
        }
        return tagged;
    }

    /** The text of {@code report.txt}. */
    static String report(RunResult run) {
        StringBuilder text = new StringBuilder();
        text.append("Load run:  ").append(run.label()).append('\n');
        text.append("Started:   ").append(run.startedAt()).append('\n');
        text.append("Target:    ").append(run.target()).append('\n');
        if (!run.settings().isEmpty()) {
            text.append("Settings:\n");
            run.settings().forEach((key, value) -> text.append("  ").append(key).append(": ").append(value).append('\n'));
        }
        if (run.capacity() != null) {
            text.append("Capacity:  ").append(CapacityText.describe(run.capacity())).append('\n');
        }
        text.append('\n').append(ResultTable.render(run.phases()));
        boolean anyFaults = run.phases().stream().anyMatch(phase -> !phase.faults().events().isEmpty()
                || !phase.faults().neverApplied().isEmpty());
        if (anyFaults) {
            text.append("\nFaults (every action with its time is in summary.json):\n");
            for (PhaseResult phase : run.phases()) {
                if (!phase.faults().summary().isEmpty()) {
                    text.append("  ").append(phase.name()).append(": ").append(phase.faults().summary()).append('\n');
                }
            }
        }
        boolean anyErrors = run.phases().stream().anyMatch(phase -> !phase.errorReasons().isEmpty());
        if (anyErrors) {
            text.append("\nErrors by reason:\n");
            for (PhaseResult phase : run.phases()) {
                for (Map.Entry<String, Long> reason : phase.errorReasons().entrySet()) {
                    text.append("  ").append(phase.name()).append(": ").append(reason.getValue()).append(" x ")
                            .append(reason.getKey()).append('\n');
                }
            }
        }
        text.append("\nFiles: summary.json (all numbers), latency.png (latency by percentile), <phase>.hgrm (the answers'")
                .append(" percentiles, ms), <phase>.hlog (every histogram of the phase, tagged, microseconds, HdrHistogram log)");
        if (run.phases().stream().anyMatch(phase -> !phase.root().leaves().isEmpty())) {
            text.append(", <phase>-leaves/ (each leaf's service, queue and round-trip times over the phase, .hgrm, ms)");
        }
        text.append(".\n");
        return text.toString();
    }

    private static List<LatencyChart.Curve> curves(RunResult run) {
        return run.phases().stream().map(phase -> new LatencyChart.Curve(phase.name(), phase.latency())).toList();
    }
}
