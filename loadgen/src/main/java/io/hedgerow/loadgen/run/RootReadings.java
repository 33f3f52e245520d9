package io.hedgerow.loadgen.run;

import io.hedgerow.loadgen.report.RootView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * What the root said about one phase: two readings, before and after it, turned into a
 * {@link RootView}, and notes on anything that makes the view incomplete or wrong. A reading that
 * failed fails its figures loudly (a note), never falls back to the root's lifetime figures.
 */
final class RootReadings {
    private final RootMetricsScraper scraper;
    private final CpuMeter cpu = new CpuMeter();
    private final List<String> notes = new ArrayList<>();
    private RootMetricsScraper.Reading before;
    private CpuMeter.Reading cpuBefore;

    RootReadings(RootMetricsScraper scraper) {
        this.scraper = scraper;
    }

    /** Reads the root before the phase. */
    void before() {
        before = read("before");
        cpuBefore = cpu.read();
    }

    /**
     * Reads the root after the phase and compares.
     *
     * @param sent requests the generator sent in the phase: the root counting more means other clients were loading it
     */
    RootView after(long sent) {
        CpuMeter.Reading cpuAfter = cpu.read();
        RootMetricsScraper.Reading after = read("after");
        if (before == null || after == null) {
            return RootView.UNKNOWN;
        }
        RootCounters a = before.counters();
        RootCounters b = after.counters();
        Double extra = RootCounters.extraLeafPercent(a, b);
        if (extra == null && b.needed().isEmpty()) {
            notes.add("extra leaf requests unknown: the root does not count the sub-requests its searches need"
                    + " (hedgerow_subrequests_needed_total; an older root)");
        }
        Long searches = a.searchRequests() == null || b.searchRequests() == null ? null
                : Math.round(b.searchRequests() - a.searchRequests());
        if (searches != null && searches > sent) {
            notes.add(String.format(Locale.ROOT, "other clients: the root received %,d searches during the phase, this"
                    + " generator sent %,d; its counters and latency include their traffic", searches, sent));
        }
        Double rootCpu = a.cpuNanos() == null || b.cpuNanos() == null ? null : b.cpuNanos() - a.cpuNanos();
        return new RootView(extra, RootCounters.tiedBothRanPercent(a, b), searches, latencyBetween(after),
                leavesBetween(after), CpuMeter.between(cpuBefore, cpuAfter, rootCpu));
    }

    /** Each leaf's histograms over the phase; none when a reading lacks them (an older root, or a leaf added). */
    private Map<String, Histogram> leavesBetween(RootMetricsScraper.Reading after) {
        Map<String, Histogram> phase = new LinkedHashMap<>();
        for (Map.Entry<String, Histogram> entry : after.leaves().entrySet()) {
            Histogram earlier = before.leaves().get(entry.getKey());
            if (earlier == null) {
                return Map.of();
            }
            phase.put(entry.getKey(), minus(entry.getValue(), earlier));
        }
        return phase;
    }

    private RootView.Latency latencyBetween(RootMetricsScraper.Reading after) {
        if (before.latency() == null || after.latency() == null) {
            return null;
        }
        return new RootView.Latency(minus(after.latency().complete(), before.latency().complete()),
                minus(after.latency().tainted(), before.latency().tainted()),
                minus(after.latency().errors(), before.latency().errors()),
                minus(after.latency().refused(), before.latency().refused()));
    }

    private static Histogram minus(Histogram after, Histogram before) {
        Histogram delta = after.copy();
        delta.subtract(before);
        return delta;
    }

    /** Notes on what could not be read or does not add up. */
    List<String> notes() {
        return List.copyOf(notes);
    }

    private RootMetricsScraper.Reading read(String when) {
        try {
            return scraper.read();
        } catch (IOException e) {
            notes.add("root counters not read " + when + " the phase (extra leaf requests, root latency unknown): "
                    + e.getMessage());
            return null;
        }
    }
}
