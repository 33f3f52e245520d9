package io.hedgerow.root.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LeafLatencyTest {
    private static final long MS = 1_000_000L;

    @Test
    void keepsEachLeafPhaseAndPartApartAndCumulative() {
        LeafLatency latency = new LeafLatency(2);
        latency.record(1, RootMetrics.Phase.QUERY, 5 * MS, 1 * MS, 3 * MS, 2 * MS);
        latency.record(1, RootMetrics.Phase.FETCH, 2 * MS, 0, 1 * MS, 0); // no CPU time said
        latency.record(7, RootMetrics.Phase.QUERY, 5 * MS, 1 * MS, 3 * MS, 2 * MS); // not a leaf of this root: ignored
        assertThat(histogram(latency.snapshot(), 1, RootMetrics.Phase.QUERY, LeafLatency.Part.SERVICE).getMaxValue())
                .isBetween(2_950L, 3_050L);

        latency.record(1, RootMetrics.Phase.QUERY, 9 * MS, 2 * MS, 6 * MS, 4 * MS);
        List<LeafLatency.Reading> readings = latency.snapshot();
        assertThat(readings).hasSize(2 * 2 * 4);
        Histogram service = histogram(readings, 1, RootMetrics.Phase.QUERY, LeafLatency.Part.SERVICE);
        assertThat(service.getTotalCount()).as("since the start, not since the last snapshot").isEqualTo(2);
        assertThat(service.getMaxValue()).isBetween(5_900L, 6_100L);
        assertThat(histogram(readings, 1, RootMetrics.Phase.QUERY, LeafLatency.Part.QUEUE).getMaxValue())
                .isBetween(1_950L, 2_050L);
        assertThat(histogram(readings, 1, RootMetrics.Phase.QUERY, LeafLatency.Part.ROUND_TRIP).getMaxValue())
                .isBetween(8_900L, 9_100L);
        assertThat(histogram(readings, 1, RootMetrics.Phase.QUERY, LeafLatency.Part.CPU).getMaxValue())
                .isBetween(3_950L, 4_050L);
        assertThat(histogram(readings, 1, RootMetrics.Phase.FETCH, LeafLatency.Part.SERVICE).getTotalCount()).isEqualTo(1);
        assertThat(histogram(readings, 1, RootMetrics.Phase.FETCH, LeafLatency.Part.CPU).getTotalCount())
                .as("an answer without CPU time adds none").isZero();
        assertThat(histogram(readings, 1, RootMetrics.Phase.FETCH, LeafLatency.Part.QUEUE).getMinValue())
                .as("a zero wait is kept as the smallest value, 1 us").isEqualTo(1);
        assertThat(histogram(readings, 0, RootMetrics.Phase.QUERY, LeafLatency.Part.SERVICE).getTotalCount()).isZero();
    }

    @Test
    void recordsNothingForARootOfNoLeaves() {
        LeafLatency latency = new LeafLatency(0);
        latency.record(0, RootMetrics.Phase.QUERY, MS, MS, MS, MS);
        assertThat(latency.snapshot()).isEmpty();
    }

    private static Histogram histogram(List<LeafLatency.Reading> readings, int leaf, RootMetrics.Phase phase,
            LeafLatency.Part part) {
        return readings.stream().filter(r -> r.leaf() == leaf && r.phase() == phase && r.part() == part).findFirst()
                .orElseThrow().histogram();
    }
}
