package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A run of seqs keeps one value each as it grows, is dropped from its start, and restarts at a gap. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SeqRingTest {
    @Test
    void keepsEverySeqOfARunThroughGrowingAndDroppingAndRestartsAtAGap() {
        SeqRing ring = new SeqRing();
        ring.reset(10);
        for (long seq = 11; seq <= 1000; seq++) {
            ring.add(seq, seq * 7);
            if (seq % 100 == 0) {
                ring.dropThrough(seq - 50);
            }
        }
        assertThat(ring.holds(951)).isTrue();
        assertThat(ring.holds(950)).as("dropped").isFalse();
        assertThat(ring.get(951)).isEqualTo(951 * 7);
        assertThat(ring.get(1000)).isEqualTo(7000);
        assertThat(ring.holds(1001)).isFalse();

        ring.add(1005, 1); // a gap: the run starts over
        assertThat(ring.holds(1000)).isFalse();
        assertThat(ring.firstSeq()).isEqualTo(1005);
        assertThat(ring.get(1005)).isEqualTo(1);
        ring.dropThrough(2000);
        assertThat(ring.holds(1005)).isFalse();
        assertThat(ring.firstSeq()).isEqualTo(2001);
    }
}
