package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.NodeId;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cluster's load from the leaves' published counters: increases summed, restarts only baselines. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeafLoadSumsTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private static LeafEntry entry(long incarnation, long p0, long p1) {
        return new LeafEntry("127.0.0.1:1", incarnation, Map.of(0, p0, 1, p1));
    }

    @Test
    void sumsEachLeafsIncreasesAndTakesAFirstReadingAsABaseline() {
        LeafLoadSums sums = new LeafLoadSums(2);
        sums.published(A, entry(7, 1_000, 5_000)); // served before this root watched: not counted
        sums.published(B, entry(9, 0, 0));
        assertThat(sums.totals()).containsExactly(0, 0);
        assertThat(sums.anyPublished()).isTrue();

        sums.published(A, entry(7, 1_500, 5_000));
        sums.published(B, entry(9, 200, 300));

        assertThat(sums.totals()).containsExactly(700, 300);
    }

    @Test
    void aRestartedLeafIsANewBaselineAndTheTotalsNeverDecrease() {
        LeafLoadSums sums = new LeafLoadSums(2);
        sums.published(A, entry(7, 1_000, 1_000));
        sums.published(A, entry(7, 2_000, 1_000));
        sums.published(A, entry(8, 10, 10)); // restarted: counters from 0 again

        assertThat(sums.totals()).containsExactly(1_000, 0);

        sums.published(A, entry(8, 110, 10));
        assertThat(sums.totals()).containsExactly(1_100, 0);
    }

    @Test
    void ignoresEntriesWithoutLoadAndPartitionsBeyondTheRoots() {
        LeafLoadSums sums = new LeafLoadSums(1);
        sums.published(A, LeafEntry.addressOnly("127.0.0.1:1"));
        assertThat(sums.anyPublished()).isFalse();

        sums.published(B, entry(3, 0, 0));
        sums.published(B, entry(3, 50, 999));
        assertThat(sums.totals()).containsExactly(50);
    }
}
