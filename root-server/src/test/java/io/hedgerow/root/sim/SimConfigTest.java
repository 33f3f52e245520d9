package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SimConfigTest {

    @Test
    void derivesTheRateFromTheLoad() {
        // 100 leaves of 4 workers at 30%, 100 partitions of 10 ms each: 120 searches a second.
        SimConfig config = SimConfig.defaults().with("service", "fixed:10ms");

        assertThat(config.searchesPerSecond()).isCloseTo(120.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(config.with("rate", "55").searchesPerSecond()).isEqualTo(55.0);
    }

    @Test
    void namesTheOptionAndWhatWasExpected() {
        assertThatThrownBy(() -> SimConfig.defaults().with("leaves", "0"))
                .hasMessage("leaves: 0 (expected: >= 1)");
        assertThatThrownBy(() -> SimConfig.defaults().with("leaves", "2").with("replicas", "3"))
                .hasMessage("replicas: 3 (expected: <= leaves 2)");
        assertThatThrownBy(() -> SimConfig.defaults().with("fan-out", "3"))
                .hasMessageStartingWith("option: 'fan-out' (expected: one of [leaves, partitions");
        assertThatThrownBy(() -> SimConfig.defaults().with("policy", "hedged+tied"))
                .hasMessage("policy: 'hedged+tied' (expected: hedged or tied, not both)");
        assertThatThrownBy(() -> SimConfig.defaults().with("root-cpu", "20us"))
                .hasMessageEndingWith("(expected: 0 without cores: CPU outside the leaves' workers is only modelled on"
                        + " shared cores)");
    }

    @Test
    void sharedCoresAreTheContention() {
        assertThat(SimConfig.defaults().contention).isEqualTo(0.2);
        assertThat(SimConfig.defaults().with("cores", "2").contention).isZero();
        assertThat(SimConfig.defaults().with("cores", "2").with("contention", "0.1").contention).isEqualTo(0.1);
    }

    @Test
    void readsServiceTimes() {
        SplittableRandom random = new SplittableRandom(1);
        assertThat(ServiceTime.parse("fixed:2ms").sampleNanos(random)).isEqualTo(2_000_000);
        assertThat(ServiceTime.parse("exp:2ms").meanNanos()).isEqualTo(2_000_000);
        ServiceTime lognormal = ServiceTime.parse("lognormal:2ms,10ms");
        long[] draws = new long[100_000];
        for (int i = 0; i < draws.length; i++) {
            draws[i] = lognormal.sampleNanos(random);
        }
        java.util.Arrays.sort(draws);
        assertThat(draws[50_000]).isBetween(1_950_000L, 2_050_000L);
        assertThat(draws[99_000]).isBetween(9_500_000L, 10_500_000L);
    }

    @Test
    void replaysAPercentileTable() {
        EmpiricalServiceTime table = EmpiricalServiceTime.parse(List.of(
                "       Value     Percentile TotalCount 1/(1-Percentile)",
                "",
                "       1.000 0.000000000000          1           1.00",
                "       2.000 0.500000000000        500           2.00",
                "      10.000 1.000000000000       1000",
                "#[Mean    =        3.000, StdDeviation   =        1.000]"), "test");
        SplittableRandom random = new SplittableRandom(3);
        int belowTwo = 0;
        for (int i = 0; i < 10_000; i++) {
            long nanos = table.sampleNanos(random);
            assertThat(nanos).isBetween(1_000_000L, 10_000_000L);
            if (nanos <= 2_000_000) {
                belowTwo++;
            }
        }
        assertThat(belowTwo).isBetween(4_800, 5_200);
        assertThat(table.meanNanos()).isCloseTo(3.75e6, org.assertj.core.data.Offset.offset(1.0));
    }
}
