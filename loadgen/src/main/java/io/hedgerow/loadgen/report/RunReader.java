package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.hedgerow.loadgen.scenario.PhaseFaults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Loads a results folder that {@link ReportWriter} wrote back into a {@link RunResult}: counts and
 * settings from {@code summary.json}, each phase's whole histogram from its {@code .hlog}. What
 * comes back equals what was written.
 */
public final class RunReader {
    private static final ObjectReader JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES) // later versions may add fields
            .build()
            .readerFor(RunSummary.class);

    private RunReader() {
    }

    /**
     * @throws IOException with a one-line message naming the folder when it is not a run's results
     *                     folder, or a file in it is missing or unreadable
     */
    public static RunResult read(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            throw new IOException(folder + ": no such folder (expected a results folder of ./hedgerow loadgen)");
        }
        Path summaryFile = folder.resolve(ReportWriter.SUMMARY);
        if (!Files.isRegularFile(summaryFile)) {
            throw new IOException(folder + " is not a load run: it has no " + ReportWriter.SUMMARY
                    + " (expected a results folder of ./hedgerow loadgen, e.g. results/20260101-120000-run)");
        }
        RunSummary summary;
        try {
            summary = JSON.readValue(summaryFile.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException(summaryFile + ": not a load run summary (" + e.getOriginalMessage() + ")", e);
        }
        if (!RunSummary.FORMAT.equals(summary.format())) {
            throw new IOException(summaryFile + ": format '" + summary.format() + "' (expected: " + RunSummary.FORMAT
                    + (summary.format() != null && summary.format().endsWith("/1")
                            ? "; written by an older load generator, whose latency mixed errors with answers: rerun it)"
                            : ")"));
        }
        List<PhaseResult> phases = new ArrayList<>();
        for (RunSummary.Phase phase : summary.phases()) {
            Path histogramFile = folder.resolve(phase.histogramFile()).normalize();
            if (!histogramFile.startsWith(folder.normalize())) {
                throw new IOException(summaryFile + ": histogram_file '" + phase.histogramFile() + "' (expected: a file in the folder)");
            }
            Map<String, Histogram> tagged = HistogramFiles.readLog(histogramFile);
            Latencies latencies = latencies(tagged, histogramFile);
            RootView.Latency rootLatency = tagged.containsKey(ReportWriter.ROOT + ReportWriter.COMPLETE)
                    ? new RootView.Latency(tag(tagged, ReportWriter.ROOT + ReportWriter.COMPLETE, histogramFile),
                            tag(tagged, ReportWriter.ROOT + ReportWriter.TAINTED, histogramFile),
                            tag(tagged, ReportWriter.ROOT + ReportWriter.ERRORS, histogramFile),
                            tagged.getOrDefault(ReportWriter.ROOT + ReportWriter.REFUSED, new Histogram(3)))
                    : null;
            RunSummary.Root root = phase.root();
            RootView view = root == null ? new RootView(null, null, null, rootLatency)
                    : new RootView(root.extraLeafRequestsPct(), root.tiedBothRanPct(), root.searches(), rootLatency,
                            Map.of(), root.cpuCores() == null ? null : new RootView.Cpu(root.cpuCores().machine(),
                                    root.cpuCores().generator(), root.cpuCores().root()));
            phases.add(new PhaseResult(phase.name(), phase.mode(), phase.targetRate(), phase.durationNanos(), phase.sent(),
                    phase.dropped(), latencies, phase.taintedCoverage(), phase.errorReasons(), view, phase.notes(),
                    new PhaseFaults(phase.faults(), phase.faultsNeverApplied())));
        }
        return new RunResult(summary.label(), startedAt(summaryFile, summary.startedAt()), summary.target(),
                summary.settings() == null ? Map.of() : summary.settings(), phases, summary.capacity());
    }

    /**
     * A phase's histograms from its log. "errors" holds every failure and "refused" the refusals
     * among them; a log written before refusals were told apart has no "refused": none refused.
     */
    private static Latencies latencies(Map<String, Histogram> tagged, Path file) throws IOException {
        Histogram failures = tag(tagged, ReportWriter.ERRORS, file);
        Histogram refused = tagged.getOrDefault(ReportWriter.REFUSED, Latencies.newHistogram());
        if (refused.getTotalCount() > failures.getTotalCount()) {
            throw new IOException(file + ": " + refused.getTotalCount() + " refused but " + failures.getTotalCount()
                    + " errors (expected: the refusals among the errors)");
        }
        Histogram others = failures.copy();
        try {
            others.subtract(refused);
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            throw new IOException(file + ": the 'refused' histogram is not part of 'errors' (" + e.getMessage() + ")", e);
        }
        return Latencies.of(tag(tagged, ReportWriter.COMPLETE, file), tag(tagged, ReportWriter.TAINTED, file), refused,
                others, tag(tagged, ReportWriter.LAG, file));
    }

    private static Histogram tag(Map<String, Histogram> tagged, String tag, Path file) throws IOException {
        Histogram histogram = tagged.get(tag);
        if (histogram == null) {
            throw new IOException(file + ": no histogram tagged '" + tag + "' (it has " + tagged.keySet() + ")");
        }
        return histogram;
    }

    private static Instant startedAt(Path summaryFile, String text) throws IOException {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IOException(summaryFile + ": started_at '" + text + "' (expected: an ISO-8601 instant)", e);
        }
    }
}
