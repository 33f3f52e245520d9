package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RootCountersTest {
    /** As Micrometer's Prometheus registry writes it, help and type lines included. */
    private static String metrics(double primary, double retry, double backup, double twin, double pairs, double bothRan) {
        return """
                # HELP hedgerow_subrequests_total Sub-requests sent to leaves, by why they were sent
                # TYPE hedgerow_subrequests_total counter
                hedgerow_subrequests_total{kind="backup"} %s
                hedgerow_subrequests_total{kind="fetch"} 999.0
                hedgerow_subrequests_total{kind="primary"} %s
                hedgerow_subrequests_total{kind="retry"} %s
                hedgerow_subrequests_total{kind="twin"} %s
                # HELP hedgerow_tied_pairs_total Tied pairs sent
                # TYPE hedgerow_tied_pairs_total counter
                hedgerow_tied_pairs_total %s
                # TYPE hedgerow_tied_both_ran_total counter
                hedgerow_tied_both_ran_total %s
                # TYPE hedgerow_hedge_delay_seconds histogram
                hedgerow_hedge_delay_seconds_count 12.0
                """.formatted(backup, primary, retry, twin, pairs, bothRan);
    }

    @Test
    void readsSubRequestsByKindAndTiedPairs() {
        RootCounters counters = RootMetricsScraper.parse(metrics(1600, 3, 40, 800, 800, 6));

        assertThat(counters.subRequests()).containsEntry("primary", 1600.0).containsEntry("twin", 800.0)
                .containsEntry("fetch", 999.0);
        assertThat(counters.tiedPairs()).isEqualTo(800);
        assertThat(counters.tiedBothRan()).isEqualTo(6);
    }

    @Test
    void countsRetriesBackupsAndTwinsAsExtraButNotFetches() {
        RootCounters before = RootMetricsScraper.parse(metrics(1000, 1, 10, 0, 0, 0));
        RootCounters after = RootMetricsScraper.parse(metrics(2600, 4, 50, 800, 800, 6));

        // (3 retries + 40 backups + 800 twins) over 1600 primaries
        assertThat(RootCounters.extraLeafPercent(before, after)).isCloseTo(100.0 * 843 / 1600, within(1e-9));
        assertThat(RootCounters.tiedBothRanPercent(before, after)).isCloseTo(0.75, within(1e-9));
    }

    @Test
    void knowsNothingWithoutTrafficOrTiedPairs() {
        RootCounters quiet = RootMetricsScraper.parse(metrics(1000, 1, 10, 0, 0, 0));

        assertThat(RootCounters.extraLeafPercent(quiet, quiet)).as("no primaries").isNull();
        assertThat(RootCounters.tiedBothRanPercent(quiet, RootMetricsScraper.parse(metrics(2000, 1, 10, 0, 0, 0))))
                .as("no tied pairs: n/a, not 0%").isNull();
        assertThat(RootCounters.extraLeafPercent(RootCounters.NONE, RootCounters.NONE)).as("not a Hedgerow root").isNull();
    }

    @Test
    void readsARootThatHasNoTiedCountersYet() {
        RootCounters old = RootMetricsScraper.parse("hedgerow_subrequests_total{kind=\"primary\",} 16.0\n");

        assertThat(old.subRequests()).containsEntry("primary", 16.0);
        assertThat(old.tiedPairs()).isZero();
    }
}
