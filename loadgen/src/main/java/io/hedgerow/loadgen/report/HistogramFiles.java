package io.hedgerow.loadgen.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

/**
 * A phase's latency histogram (microseconds) on disk, in HdrHistogram's own formats, so its tools
 * (HistogramLogAnalyzer, the online .hgrm plotter) read them too: a {@code .hlog} holds the whole
 * histogram, losslessly, and a {@code .hgrm} its percentile distribution in milliseconds.
 */
final class HistogramFiles {
    /** Microseconds to milliseconds in the human-readable output. */
    private static final double MICROS_PER_MILLI = 1000.0;
    private static final int PERCENTILE_TICKS_PER_HALF_DISTANCE = 5;

    private HistogramFiles() {
    }

    /** Writes the percentile distribution in milliseconds, as {@code outputPercentileDistribution} prints it. */
    static void writePercentiles(Histogram latencyMicros, Path file) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, false, StandardCharsets.US_ASCII)) {
            latencyMicros.outputPercentileDistribution(out, PERCENTILE_TICKS_PER_HALF_DISTANCE, MICROS_PER_MILLI);
        }
        Files.write(file, bytes.toByteArray()); // buffered first: a PrintStream would swallow a write error
    }

    /**
     * Writes histograms as one HdrHistogram log, one interval each, tagged with its name (e.g.
     * {@code complete}, {@code lag}); {@code comment} says what they are.
     */
    static void writeLog(Map<String, Histogram> tagged, long startEpochMillis, double durationSeconds, String comment,
            Path file) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HistogramLogWriter writer = new HistogramLogWriter(bytes);
        writer.outputComment(comment.replaceAll("\\R", " ")); // one line: a line break would end the comment
        writer.outputLogFormatVersion();
        writer.outputStartTime(startEpochMillis);
        writer.outputLegend();
        for (Map.Entry<String, Histogram> entry : tagged.entrySet()) {
            Histogram histogram = entry.getValue().copy();
            histogram.setTag(entry.getKey());
            writer.outputIntervalHistogram(0, durationSeconds, histogram, MICROS_PER_MILLI);
        }
        writer.close();
        Files.write(file, bytes.toByteArray());
    }

    /** Reads the histograms a {@link #writeLog} wrote, by tag. */
    static Map<String, Histogram> readLog(Path file) throws IOException {
        Map<String, Histogram> tagged = new LinkedHashMap<>();
        try (InputStream in = Files.newInputStream(file)) {
            HistogramLogReader reader = new HistogramLogReader(in);
            for (EncodableHistogram histogram = reader.nextIntervalHistogram(); histogram != null;
                    histogram = reader.nextIntervalHistogram()) {
                if (!(histogram instanceof Histogram latency) || latency.getTag() == null) {
                    throw new IOException(file + ": an interval without a tag (expected: tagged latency histograms)");
                }
                tagged.put(latency.getTag(), latency);
            }
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": missing (the run's summary.json names it)", e);
        } catch (RuntimeException e) {
            throw new IOException(file + ": not a readable HdrHistogram log (" + e.getMessage() + ")", e);
        }
        if (tagged.isEmpty()) {
            throw new IOException(file + ": no latency histogram in it (expected an HdrHistogram log)");
        }
        return tagged;
    }
}
