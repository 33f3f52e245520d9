package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class RootCountersTest {
    /** As Micrometer's Prometheus registry writes it, help and type lines included. */
    private static String metrics(double primary, double canary, double retry, double backup, double twin, double fetch,
            double neededQuery, double neededFetch, double pairs, double bothRan, double searches) {
        return """
                # HELP hedgerow_subrequests_total Sub-requests sent to leaves, by why they were sent
                # TYPE hedgerow_subrequests_total counter
                hedgerow_subrequests_total{kind="backup"} %s
                hedgerow_subrequests_total{kind="canary"} %s
                hedgerow_subrequests_total{kind="fetch"} %s
                hedgerow_subrequests_total{kind="primary"} %s
                hedgerow_subrequests_total{kind="retry"} %s
                hedgerow_subrequests_total{kind="twin"} %s
                # TYPE hedgerow_subrequests_needed_total counter
                hedgerow_subrequests_needed_total{phase="fetch"} %s
                hedgerow_subrequests_needed_total{phase="query"} %s
                # HELP hedgerow_tied_pairs_total Tied pairs sent
                # TYPE hedgerow_tied_pairs_total counter
                hedgerow_tied_pairs_total %s
                # TYPE hedgerow_tied_both_ran_total counter
                hedgerow_tied_both_ran_total %s
                # TYPE hedgerow_search_requests_total counter
                hedgerow_search_requests_total %s
                # TYPE hedgerow_hedge_delay_seconds histogram
                hedgerow_hedge_delay_seconds_count 12.0
                """.formatted(backup, canary, fetch, primary, retry, twin, neededFetch, neededQuery, pairs, bothRan, searches);
    }

    @Test
    void readsSubRequestsByKindWhatWasNeededTiedPairsAndSearches() {
        RootCounters counters = RootMetricsScraper.parse(metrics(1500, 100, 3, 40, 800, 250, 1600, 240, 800, 6, 100));

        assertThat(counters.subRequests()).containsEntry("primary", 1500.0).containsEntry("canary", 100.0)
                .containsEntry("fetch", 250.0);
        assertThat(counters.needed()).containsEntry("query", 1600.0).containsEntry("fetch", 240.0);
        assertThat(counters.tiedPairs()).isEqualTo(800);
        assertThat(counters.tiedBothRan()).isEqualTo(6);
        assertThat(counters.searchRequests()).isEqualTo(100.0);
        assertThat(counters.cpuNanos()).as("a root without process_cpu_time_ns_total").isNull();
    }

    @Test
    void readsTheRootsCpuTime() {
        RootCounters counters = RootMetricsScraper.parse(metrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) + """
                # HELP process_cpu_time_ns_total The "cpu time" used by the Java Virtual Machine process
                # TYPE process_cpu_time_ns_total counter
                process_cpu_time_ns_total 1.23E10
                """);

        assertThat(counters.cpuNanos()).isEqualTo(1.23e10);
    }

    @Test
    void countsEverySubRequestBeyondOnePerPartitionAndOneFetchPerLeafAsExtra() {
        RootCounters before = RootMetricsScraper.parse(metrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        // 100 searches over 16 partitions: 100 canaries and 1500 primaries are the 1600 needed; 4 canaries
        // re-sent, 3 retries, 40 backups and 10 re-sent fetches beyond the 240 fetches needed are extra.
        RootCounters after = RootMetricsScraper.parse(metrics(1500, 104, 3, 40, 0, 250, 1600, 240, 0, 0, 100));

        assertThat(RootCounters.extraLeafPercent(before, after)).isCloseTo(100.0 * (4 + 3 + 40 + 10) / 1840, within(1e-9));
        assertThat(RootCounters.tiedBothRanPercent(before, after)).as("no tied pairs: n/a, not 0%").isNull();
    }

    @Test
    void countsTiedTwinsAsExtraAndThePairsWhereBothRan() {
        RootCounters before = RootMetricsScraper.parse(metrics(1000, 0, 1, 10, 0, 0, 1000, 0, 0, 0, 0));
        RootCounters after = RootMetricsScraper.parse(metrics(2600, 0, 4, 50, 800, 0, 2600, 0, 800, 6, 0));

        assertThat(RootCounters.extraLeafPercent(before, after)).isCloseTo(100.0 * 843 / 1600, within(1e-9));
        assertThat(RootCounters.tiedBothRanPercent(before, after)).isCloseTo(0.75, within(1e-9));
    }

    @Test
    void knowsNothingWhenNoSearchReachedTheLeaves() {
        RootCounters quiet = RootMetricsScraper.parse(metrics(1000, 0, 1, 10, 0, 0, 1000, 0, 0, 0, 5));

        assertThat(RootCounters.extraLeafPercent(quiet, quiet)).isNull();
    }

    @Test
    void readsARootThatCountsNeitherWhatItNeedsNorItsSearches() {
        RootCounters old = RootMetricsScraper.parse("hedgerow_subrequests_total{kind=\"primary\",} 16.0\n");

        assertThat(old.subRequests()).containsEntry("primary", 16.0);
        assertThat(old.needed()).isEmpty();
        assertThat(old.searchRequests()).isNull();
        assertThat(old.tiedPairs()).isZero();
    }

    @Test
    void refusesALatencyBodyItCannotRead() {
        assertThatThrownBy(() -> RootMetricsScraper.parseLatency("{\"took_ms\": 0.0}")).isInstanceOf(IOException.class)
                .hasMessageContaining("unit");
        assertThatThrownBy(() -> RootMetricsScraper.parseLatency("{\"unit\": \"microseconds\", \"complete\": {}}"))
                .hasMessageContaining("no histogram for 'complete'");
    }
}
