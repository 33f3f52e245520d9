package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.report.PhaseResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class CapacitySearchTest {

    /** A server whose p99 is 2 ms below {@code capacity} requests per second and 100 ms above. */
    private static PhaseResult step(double rate, double capacity) {
        Histogram latency = new Histogram(1, PhaseRecorder.HIGHEST_MICROS, 3);
        latency.recordValueWithCount(rate <= capacity ? 2_000 : 100_000, 1000);
        return new PhaseResult("rate-" + rate, "open/poisson", rate, 10_000_000_000L, 1000, 0, 0, 0, null, latency, null, null, Map.of());
    }

    @Test
    void growsUntilALimitBreaksThenBisects() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 4, 100_000);
        List<Double> tried = new ArrayList<>();
        while (search.nextRate().isPresent()) {
            double rate = search.nextRate().getAsDouble();
            tried.add(rate);
            search.observe(step(rate, 1000));
        }
        assertThat(tried).containsExactly(100.0, 200.0, 400.0, 800.0, 1600.0, 1200.0, 1000.0, 1100.0, 1050.0);
        assertThat(search.sustainableRate()).isEqualTo(1000.0);
    }

    @Test
    void failsAStepThatDroppedRequestsOrErredEvenWithLowLatency() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 0, 100_000);
        Histogram fast = new Histogram(1, PhaseRecorder.HIGHEST_MICROS, 3);
        fast.recordValueWithCount(1000, 1000);
        assertThat(search.passes(new PhaseResult("a", "open/poisson", 100, 1, 1000, 0, 1, 0, null, fast, null, null, Map.of()))).isFalse();
        assertThat(search.passes(new PhaseResult("b", "open/poisson", 100, 1, 1000, 20, 0, 0, null, fast, null, null, Map.of()))).isFalse();
        assertThat(search.passes(new PhaseResult("c", "open/poisson", 100, 1, 1000, 10, 0, 0, null, fast, null, null, Map.of()))).isTrue();
    }

    @Test
    void stopsAtTheMaximumRateWhenNothingBreaks() {
        CapacitySearch search = new CapacitySearch(100, 10, 20, 0.01, 3, 5000);
        List<Double> tried = new ArrayList<>();
        while (search.nextRate().isPresent()) {
            double rate = search.nextRate().getAsDouble();
            tried.add(rate);
            search.observe(step(rate, 1e9));
        }
        assertThat(tried).containsExactly(100.0, 1000.0, 5000.0);
        assertThat(search.sustainableRate()).isEqualTo(5000.0);
    }

    @Test
    void reportsZeroWhenEvenTheFirstRateFails() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 2, 10_000);
        search.observe(step(100, 10));
        assertThat(search.sustainableRate()).isZero();
    }
}
