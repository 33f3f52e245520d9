package io.hedgerow.loadgen.report;

import io.hedgerow.loadgen.run.PhaseRecorder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/** Phases and runs with known numbers, for the report tests. */
final class TestPhases {
    private TestPhases() {
    }

    /**
     * 1000 requests: 800 at 2 ms, 180 at 8 ms, 15 at 40 ms, 4 at 120 ms, 1 at 1.5 s. At three
     * significant digits a percentile reads as the highest value of its bucket: p50 2.000 ms, p90
     * 8.003, p99 40.031, p99.9 120.063, max 1500.159.
     */
    static Histogram knownLatency() {
        Histogram latency = new Histogram(1, PhaseRecorder.HIGHEST_MICROS, 3);
        latency.recordValueWithCount(2_000, 800);
        latency.recordValueWithCount(8_000, 180);
        latency.recordValueWithCount(40_000, 15);
        latency.recordValueWithCount(120_000, 4);
        latency.recordValue(1_500_000);
        return latency;
    }

    /**
     * An open-loop phase of 1000 requests in 1 s with {@link #knownLatency()}, 3 errors, 2 dropped, 50 tainted (mean coverage 0.92),
     * 1.5% extra leaf requests, 0.25% of tied pairs both ran. Its mean is 5.620 ms and its standard deviation
     * 48.10 ms (from each bucket's middle value, as HdrHistogram computes them: 2000, 8002, 40016, 120032 and
     * 1499648 us).
     */
    static PhaseResult knownPhase(String name) {
        return new PhaseResult(name, "open/poisson", 1000, 1_000_000_000L, 1000, 3, 2, 50, 0.92, knownLatency(), 1.5, 0.25,
                Map.of("HTTP 503", 2L, "connection closed by the server", 1L));
    }

    /** A closed-loop phase of {@code count} random latencies around {@code medianMicros}, extra leaf requests unknown. */
    static PhaseResult randomPhase(String name, long count, long medianMicros, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Histogram latency = new Histogram(1, PhaseRecorder.HIGHEST_MICROS, 3);
        for (long i = 0; i < count; i++) {
            latency.recordValue(medianMicros / 2 + (long) (-Math.log(1 - random.nextDouble()) * medianMicros * 0.7));
        }
        return new PhaseResult(name, "closed", 0, 2_500_000_000L, count, 0, 0, 0, null, latency, null, null, Map.of());
    }

    static RunResult run(String label, List<PhaseResult> phases) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("target", "http://127.0.0.1:8080");
        settings.put("seed", "42");
        settings.put("mix", "default");
        return new RunResult(label, Instant.parse("2026-11-22T14:30:05.123Z"), "http://127.0.0.1:8080", settings, phases);
    }
}
