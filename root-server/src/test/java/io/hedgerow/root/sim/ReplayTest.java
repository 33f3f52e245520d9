package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replaying measured leaves: the per-leaf service-time files a load run saves from the root's
 * {@code /metrics/leaves} (HdrHistogram percentile text in ms, as the load generator writes them)
 * drive each simulated leaf with its own distribution, and a pause can hit one leaf only, as the
 * tail suite's pause scenario stops one leaf process.
 */
class ReplayTest {
    private static final long SEED = 15;

    @TempDir
    Path dir;

    /** Leaf 0 takes 1 to 3 ms, leaf 1 8 to 12 ms, uniformly, in microseconds: written as the load generator writes them. */
    private Path measuredLeaves() throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        Histogram fast = new Histogram(1, 60_000_000L, 2);
        Histogram slow = new Histogram(1, 60_000_000L, 2);
        for (int i = 0; i < 100_000; i++) {
            fast.recordValue(1_000 + random.nextLong(2_000));
            slow.recordValue(8_000 + random.nextLong(4_000));
        }
        Path leaves = Files.createDirectories(dir.resolve("steady-leaves"));
        write(fast, leaves.resolve("leaf-0-search-service.hgrm"));
        write(slow, leaves.resolve("leaf-1-search-service.hgrm"));
        write(fast, leaves.resolve("leaf-0-search-round_trip.hgrm")); // not a service time: not read
        return leaves;
    }

    private static void write(Histogram micros, Path file) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, false, StandardCharsets.US_ASCII)) {
            micros.outputPercentileDistribution(out, 5, 1000.0);
        }
        Files.write(file, bytes.toByteArray());
    }

    @Test
    void eachLeafDrawsFromItsOwnMeasuredFileAndMoreLeavesWrapAround() throws Exception {
        ServiceTime service = ServiceTime.parse("empirical:" + measuredLeaves());

        assertThat(service).isInstanceOf(PerLeafServiceTime.class);
        assertThat(((PerLeafServiceTime) service).size()).isEqualTo(2);
        Histogram leaf0 = draws(service.forLeaf(0));
        Histogram leaf1 = draws(service.forLeaf(1));
        assertThat(leaf0.getValueAtPercentile(50) / 1000.0).isCloseTo(2.0, within(0.05));
        assertThat(leaf0.getValueAtPercentile(99) / 1000.0).isCloseTo(2.98, within(0.06));
        assertThat(leaf1.getValueAtPercentile(50) / 1000.0).isCloseTo(10.0, within(0.2));
        assertThat(leaf1.getMinValue()).isGreaterThanOrEqualTo(7_900);
        assertThat(draws(service.forLeaf(2)).getValueAtPercentile(50)).as("leaf 2 replays leaf 0")
                .isEqualTo(leaf0.getValueAtPercentile(50));
        assertThat(service.meanNanos() / 1e6).isCloseTo(6.0, within(0.1));
    }

    @Test
    void aSeededSimulationOfTheMeasuredLeavesWaitsForTheSlowerOne() throws Exception {
        Path leaves = measuredLeaves();
        // Two leaves, a partition each, no replica, no policy, far more workers than work: a search
        // is its two sub-requests' service times and the network, and the slower leaf always decides.
        SimConfig config = SimConfig.defaults()
                .with("leaves", "2").with("replicas", "1").with("workers", "64").with("contention", "0")
                .with("network", "1us").with("rate", "20").with("queries", "5000").with("warmup", "0")
                .with("adapt", "none").with("service", "empirical:" + leaves).with("seed", String.valueOf(SEED));

        SimSummary run = Simulation.run(config, null);

        assertThat(run.searches()).isEqualTo(5000);
        assertThat(run.p50Ms()).isCloseTo(10.0, within(0.25));
        assertThat(run.p99Ms()).isCloseTo(11.96, within(0.25));
        assertThat(run.histogram().getMinValue()).as("never the fast leaf alone").isGreaterThanOrEqualTo(7_900);
        assertThat(Simulation.run(config, null).p999Ms()).as("seeded").isEqualTo(run.p999Ms());
    }

    @Test
    void pausesOnlyTheFirstLeavesWhenToldHowMany() {
        // 4 leaves, 1 ms of work, one copy per partition: a search is slow when it meets a pause with
        // more than about 9 ms of it left, (150 - 9) / 1000 of the time on each pausing leaf.
        SimConfig oneLeaf = SimConfig.defaults()
                .with("leaves", "4").with("replicas", "1").with("service", "fixed:1ms").with("contention", "0")
                .with("rate", "20").with("queries", "5000").with("warmup", "0").with("adapt", "none")
                .with("pause-every", "1s").with("pause", "150ms").with("pause-leaves", "1")
                .with("slow-threshold", "10ms").with("seed", String.valueOf(SEED));

        double one = Simulation.run(oneLeaf, null).slowFraction();
        double all = Simulation.run(oneLeaf.with("pause-leaves", "all"), null).slowFraction();

        double p = 0.141;
        assertThat(one).isCloseTo(p, within(0.03));
        assertThat(all).isCloseTo(1 - Math.pow(1 - p, 4), within(0.04));
    }

    private static Histogram draws(ServiceTime service) {
        SplittableRandom random = new SplittableRandom(SEED);
        Histogram histogram = new Histogram(3);
        for (int i = 0; i < 50_000; i++) {
            histogram.recordValue(service.sampleNanos(random) / 1000);
        }
        return histogram;
    }
}
