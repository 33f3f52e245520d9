package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.report.Capacity;
import io.hedgerow.loadgen.report.Latencies;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.TestPhases;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;
import org.junit.jupiter.api.Test;

class CapacitySearchTest {

    /** A step at {@code rate}: p99 2 ms when it passes, 100 ms when it does not; the generator on time. */
    private static PhaseResult step(double rate, boolean fast) {
        return TestPhases.phase("rate-" + rate, rate, 0, Latencies.of(TestPhases.samples(fast ? 2_000 : 100_000, 1000),
                Latencies.newHistogram(), Latencies.newHistogram(), TestPhases.samples(100, 1000)));
    }

    /** Runs the search against a server that passes exactly the rates {@code passes} accepts; returns the rates tried. */
    private static List<String> search(CapacitySearch search, DoublePredicate passes) {
        List<String> tried = new ArrayList<>();
        while (search.nextRate().isPresent()) {
            double rate = search.nextRate().getAsDouble();
            tried.add((search.confirming() ? "confirm " : "") + Math.round(rate));
            search.observe(step(rate, passes.test(rate)));
        }
        return tried;
    }

    @Test
    void growsUntilALimitBreaksBisectsThenConfirmsTheBestRate() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 4, 100_000, 3);

        List<String> tried = search(search, rate -> rate <= 1000);

        assertThat(tried).containsExactly("100", "200", "400", "800", "1600", "1200", "1000", "1100", "1050", "confirm 1000");
        assertThat(search.result().status()).isEqualTo(Capacity.Status.CONFIRMED);
        assertThat(search.result().ratePerSecond()).isEqualTo(1000.0);
        assertThat(search.result().detail()).isEqualTo("10 steps, lowest failing rate 1050 req/s");
    }

    @Test
    void aFailedConfirmationCountsAsAFailureAndTheSearchGoesOnBelowIt() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 2, 100_000, 3);
        int[] runsAt800 = {0};

        // 800 passes once (a lucky sample), then fails when rerun; 600 and below always pass.
        List<String> tried = search(search, rate -> rate < 700 || (rate == 800 && runsAt800[0]++ == 0));

        assertThat(tried).containsExactly("100", "200", "400", "800", "1600", "1200", "1000", "confirm 800", "600",
                "confirm 600");
        assertThat(search.result().status()).isEqualTo(Capacity.Status.CONFIRMED);
        assertThat(search.result().ratePerSecond()).isEqualTo(600.0);
        assertThat(search.result().detail()).contains("1 confirmation failed");
    }

    @Test
    void failsAStepThatDroppedRequestsOrErredEvenWithLowLatencyButNotOneThatOnlySentLate() {
        CapacitySearch search = new CapacitySearch(100, 2, 20, 0.01, 0, 100_000, 1);
        Latencies fast = Latencies.of(TestPhases.samples(1_000, 1000), Latencies.newHistogram(), Latencies.newHistogram(),
                TestPhases.samples(100, 1000));

        assertThat(search.failure(TestPhases.phase("a", 100, 1, fast))).isEqualTo("1 dropped");
        assertThat(search.failure(TestPhases.phase("b", 100, 0, Latencies.of(TestPhases.samples(1_000, 980),
                Latencies.newHistogram(), TestPhases.samples(10, 20), TestPhases.samples(100, 1000)))))
                .isEqualTo("errors 2.00%");
        assertThat(search.failure(TestPhases.phase("c", 100, 0, Latencies.of(TestPhases.samples(1_000, 1000),
                Latencies.newHistogram(), Latencies.newHistogram(), TestPhases.samples(3_000, 1000)))))
                .as("lateness is in the latency already: not a limit of its own").isNull();
        assertThat(search.failure(TestPhases.phase("d", 100, 0, Latencies.of(TestPhases.samples(1_000, 995),
                Latencies.newHistogram(), TestPhases.samples(10, 5), TestPhases.samples(100, 1000))))).isNull();
    }

    @Test
    void saysNotReachedWhenEveryRateUpToTheCeilingPasses() {
        CapacitySearch search = new CapacitySearch(100, 10, 20, 0.01, 3, 5000, 3);

        List<String> tried = search(search, rate -> true);

        assertThat(tried).containsExactly("100", "1000", "5000", "confirm 5000");
        assertThat(search.result().status()).isEqualTo(Capacity.Status.NOT_REACHED);
        assertThat(search.result().ratePerSecond()).isEqualTo(5000.0);
    }

    @Test
    void shrinksFromTheStartRateWhenItFails() {
        CapacitySearch search = new CapacitySearch(1000, 2, 20, 0.01, 2, 10_000, 3);

        List<String> tried = search(search, rate -> rate <= 300);

        assertThat(tried).containsExactly("1000", "500", "250", "375", "312", "confirm 250");
        assertThat(search.result().ratePerSecond()).isEqualTo(250.0);
    }

    @Test
    void findsNothingWhenNoRateAtAllPasses() {
        CapacitySearch search = new CapacitySearch(4, 2, 20, 0.01, 2, 10_000, 3);

        List<String> tried = search(search, rate -> false);

        assertThat(tried).containsExactly("4", "2", "1");
        assertThat(search.result().status()).isEqualTo(Capacity.Status.NOT_FOUND);
        assertThat(search.result().ratePerSecond()).isZero();
    }
}
