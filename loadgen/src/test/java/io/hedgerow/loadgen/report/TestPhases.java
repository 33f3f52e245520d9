package io.hedgerow.loadgen.report;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/** Phases and runs with known numbers, for the report tests. */
public final class TestPhases {
    private TestPhases() {
    }

    /**
     * 1000 answers: 800 at 2 ms, 180 at 8 ms, 15 at 40 ms, 4 at 120 ms, 1 at 1.5 s. At three
     * significant digits a percentile reads as the highest value of its bucket: p50 2.000 ms, p90
     * 8.003, p99 40.031, p99.9 120.063, max 1500.159.
     */
    static Histogram knownLatency() {
        Histogram latency = Latencies.newHistogram();
        latency.recordValueWithCount(2_000, 800);
        latency.recordValueWithCount(8_000, 180);
        latency.recordValueWithCount(40_000, 15);
        latency.recordValueWithCount(120_000, 4);
        latency.recordValue(1_500_000);
        return latency;
    }

    /** {@code count} samples of {@code micros}. */
    public static Histogram samples(long micros, long count) {
        Histogram histogram = Latencies.newHistogram();
        if (count > 0) {
            histogram.recordValueWithCount(micros, count);
        }
        return histogram;
    }

    /**
     * An open-loop phase of 1 s: the 1000 answers of {@link #knownLatency()} (950 complete, 50 of the
     * 2 ms ones tainted, mean coverage 0.92), 3 errors at 1 ms, 2 dropped, 1003 sent each 0.1 ms late;
     * the root saw 1003 searches, answered them in 1 ms, and counted 1.5% extra leaf requests and
     * 0.25% of tied pairs where both ran; the machine was 1.5 cores busy (generator 0.25, root 0.5). The answers' mean is 5.620 ms and their standard deviation
     * 48.10 ms (from each bucket's middle value, as HdrHistogram computes them).
     */
    static PhaseResult knownPhase(String name) {
        Histogram complete = knownLatency();
        complete.reset();
        complete.recordValueWithCount(2_000, 750);
        complete.recordValueWithCount(8_000, 180);
        complete.recordValueWithCount(40_000, 15);
        complete.recordValueWithCount(120_000, 4);
        complete.recordValue(1_500_000);
        Latencies latencies = Latencies.of(complete, samples(2_000, 50), samples(1_000, 3), samples(100, 1003));
        RootView root = new RootView(1.5, 0.25, 1003L,
                new RootView.Latency(samples(1_000, 950), samples(1_000, 50), samples(500, 3), samples(200, 1)),
                Map.of(), new RootView.Cpu(1.5, 0.25, 0.5));
        return new PhaseResult(name, "open/poisson", 1000, 1_000_000_000L, 1003, 2, latencies, 0.92,
                Map.of("HTTP 503", 2L, "connection closed by the server", 1L), root, List.of());
    }

    /**
     * An open-loop overload of 1 s: 600 complete answers at 50 ms, 400 refusals at 0.3 ms, 5 other
     * errors at 1 s, 1005 sent on time; the root refused 400 searches in 0.1 ms and answered 600 in
     * 45 ms.
     */
    static PhaseResult refusingPhase(String name) {
        Latencies latencies = Latencies.of(samples(50_000, 600), Latencies.newHistogram(), samples(300, 400),
                samples(1_000_000, 5), samples(1, 1005));
        RootView root = new RootView(0.0, null, 1005L, new RootView.Latency(samples(45_000, 600), Latencies.newHistogram(),
                samples(2_000, 5), samples(100, 400)));
        return new PhaseResult(name, "open/poisson", 2000, 1_000_000_000L, 1005, 0, latencies, null,
                Map.of("HTTP 503 overloaded", 400L, "HTTP 504 timed_out", 5L), root, List.of());
    }

    /** A closed-loop phase of {@code count} random complete answers around {@code medianMicros}, the root unknown. */
    static PhaseResult randomPhase(String name, long count, long medianMicros, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Histogram latency = Latencies.newHistogram();
        for (long i = 0; i < count; i++) {
            latency.recordValue(medianMicros / 2 + (long) (-Math.log(1 - random.nextDouble()) * medianMicros * 0.7));
        }
        Latencies latencies = Latencies.of(latency, Latencies.newHistogram(), Latencies.newHistogram(), samples(20, count));
        return new PhaseResult(name, "closed", 0, 2_500_000_000L, count, 0, latencies, null, Map.of(), RootView.UNKNOWN,
                List.of());
    }

    /** A phase with only the given histograms, for judging (capacity steps, flags). */
    public static PhaseResult phase(String name, double rate, long dropped, Latencies latencies) {
        return new PhaseResult(name, "open/poisson", rate, 10_000_000_000L, latencies.lag().getTotalCount(), dropped,
                latencies, null, Map.of(), RootView.UNKNOWN, List.of());
    }

    static RunResult run(String label, List<PhaseResult> phases) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("target", "http://127.0.0.1:8080");
        settings.put("seed", "42");
        settings.put("mix", "default");
        return new RunResult(label, Instant.parse("2026-11-22T14:30:05.123Z"), "http://127.0.0.1:8080", settings, phases);
    }
}
