package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator's structured mix ({@code mix structured}): each search a shape, drawn by its
 * share from the seed, costing its shape's multiple at the leaves, and reported per shape. Every
 * assertion is on the simulator's own (seeded, exact) numbers, none on wall time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimulationMixTest {

    private static SimConfig structured() {
        return SimConfig.defaults().with("leaves", "20").with("queries", "4000").with("warmup", "0")
                .with("service", "lognormal:2ms,6ms").with("load", "0.3").with("mix", "structured").with("seed", "11");
    }

    @Test
    void theSameSeedGivesTheSameRunShapeByShape() {
        SimSummary first = Simulation.run(structured(), null);
        SimSummary again = Simulation.run(structured(), null);
        SimSummary other = Simulation.run(structured().with("seed", "12"), null);

        assertThat(again.histogram()).isEqualTo(first.histogram());
        assertThat(again.shapes()).isEqualTo(first.shapes());
        assertThat(withoutWallClock(again)).isEqualTo(withoutWallClock(first));
        assertThat(other.shapes()).isNotEqualTo(first.shapes());
    }

    @Test
    void shapesComeInTheLoadGeneratorsShares() {
        SimSummary run = Simulation.run(structured(), null);

        assertThat(run.shapes()).containsOnlyKeys("plain", "filtered", "sorted", "paged", "faceted");
        Map<String, Double> expected = Map.of("plain", 0.20, "filtered", 0.25, "sorted", 0.20, "paged", 0.15,
                "faceted", 0.20);
        long total = 0;
        for (Map.Entry<String, SimSummary.ShapeLatency> shape : run.shapes().entrySet()) {
            double share = expected.get(shape.getKey());
            total += shape.getValue().searches();
            // four standard deviations of a binomial share over the run's searches
            assertThat(shape.getValue().share()).as(shape.getKey())
                    .isCloseTo(share, offset(4 * Math.sqrt(share * (1 - share) / run.searches())));
        }
        assertThat(total).isEqualTo(run.searches());
    }

    @Test
    void facetedSearchesTakeLongerThanPlainOnes() {
        SimSummary run = Simulation.run(structured(), null);

        SimSummary.ShapeLatency plain = run.shapes().get("plain");
        SimSummary.ShapeLatency faceted = run.shapes().get("faceted");
        // 7.2 times the work on every leaf: the slowest of 20 leaves' draws, times 7.2
        assertThat(faceted.p50Ms()).isGreaterThan(3 * plain.p50Ms());
        assertThat(faceted.p99Ms()).isGreaterThan(plain.p99Ms());
        assertThat(faceted.meanMs()).isGreaterThan(3 * plain.meanMs());
        assertThat(run.shapes().get("paged").meanMs()).isLessThan(run.shapes().get("sorted").meanMs());
    }

    @Test
    void withEveryMultipleOneTheShapesAreOneDistribution() {
        SimConfig config = structured().with("mix-cost", "plain=1,filtered=1,sorted=1,paged=1,faceted=1");

        SimSummary run = Simulation.run(config, null);

        SimSummary.ShapeLatency plain = run.shapes().get("plain");
        SimSummary.ShapeLatency faceted = run.shapes().get("faceted");
        assertThat(faceted.p50Ms()).isCloseTo(plain.p50Ms(), offset(plain.p50Ms() * 0.1));
    }

    @Test
    void aMixWithoutShapesRunsAsBeforeAndReportsNone() {
        SimConfig plain = SimConfig.defaults().with("leaves", "20").with("queries", "1000").with("seed", "3");

        SimSummary none = Simulation.run(plain, null);

        assertThat(none.shapes()).isEmpty();
        assertThat(none.toJson()).doesNotContainKey("shapes");
        assertThat(SimTable.of(List.of("leaves"), List.of(none))).doesNotContain("shape");
    }

    @Test
    void theLoadOptionCountsTheMixsMeanCost() {
        SimConfig config = structured();

        double mean = 0.20 * 1 + 0.25 * 2 + 0.20 * 2.5 + 0.15 * 1.5 + 0.20 * 7.2;
        assertThat(config.searchesPerSecond() * mean)
                .isCloseTo(config.with("mix", "none").searchesPerSecond(), offset(1e-6));
        assertThat(mean).as("the calibration: 6.55 ms of CPU per answer against 2.29 ms plain")
                .isCloseTo(6.55 / 2.29, offset(0.01));
    }

    /**
     * One leaf in twenty ten times slower: without hedging, a search that asks it waits for it; a
     * backup after the p95 of recent sub-requests goes to its partition's other replica. The mix
     * spreads the sub-requests' own times over 1 to 7.2 times: the p95 the delay is read from is a
     * faceted search's, so plain searches wait longer for their backup, and hedging must still win.
     */
    @Test
    void hedgingStillCutsTheTailOfTheStructuredMixUnderASlowLeaf() {
        SimConfig config = structured().with("queries", "6000").with("warmup", "0.1").with("degraded-leaves", "1")
                .with("degraded-factor", "10").with("adapt", "none");

        SimSummary off = Simulation.run(config, null);
        SimSummary hedged = Simulation.run(config.with("policy", "hedged"), null);

        assertThat(hedged.p99Ms()).as("p99 hedged against off").isLessThan(off.p99Ms() / 2);
        assertThat(hedged.p999Ms()).as("p99.9 hedged against off").isLessThan(off.p999Ms());
        for (String shape : List.of("plain", "faceted")) {
            assertThat(hedged.shapes().get(shape).p99Ms()).as(shape + " p99 hedged against off")
                    .isLessThan(off.shapes().get(shape).p99Ms());
        }
        assertThat(hedged.extraRequests()).as("extra requests hedged").isLessThan(0.2);
    }

    /**
     * The same slow leaf under the root's default adaptation. A leaf answers a copy the root's cancel
     * stopped while it ran OK, cut short, and the root takes that round trip as a sample of the
     * leaf's latency: the hedged copies a slow leaf loses still show it slow, probation takes it out
     * of rotation, and hedging leaves the median alone. When the simulated leaf answered them
     * CANCELLED (no sample), the slow leaf looked as fast as the answers it won and drew twice its
     * primaries: the hedged p50 was 24.5 ms against 11.6 ms without hedging.
     */
    @Test
    void aSlowLeafsStoppedCopiesStillCountAsItsLatencySoHedgingLeavesTheMedianAlone() {
        SimConfig config = structured().with("queries", "6000").with("warmup", "0.1").with("degraded-leaves", "1")
                .with("degraded-factor", "10");

        SimSummary off = Simulation.run(config, null);
        SimSummary hedged = Simulation.run(config.with("policy", "hedged"), null);

        assertThat(hedged.p50Ms()).as("p50 hedged against off").isLessThan(off.p50Ms() * 1.2);
        assertThat(hedged.p99Ms()).as("p99 hedged against off").isLessThan(off.p99Ms());
    }

    /**
     * A shape given a service time of its own (mix-service) draws from it, not from the leaf's scaled
     * by its mix-cost: with one leaf and one partition a search is one sub-request, so a faceted search
     * takes its fixed 20 ms (a narrow distribution), where a plain one keeps the lognormal's spread and
     * a multiple alone would have scaled that spread too.
     */
    @Test
    void aShapeWithAServiceTimeOfItsOwnDrawsFromIt() {
        SimConfig config = structured().with("leaves", "1").with("partitions", "1").with("queries", "3000")
                .with("rate", "5").with("contention", "0").with("network", "0");
        SimConfig own = config.with("mix-service", "faceted=fixed:20ms;sorted=lognormal:4ms,5ms");

        SimSummary scaled = Simulation.run(config, null);
        SimSummary drawn = Simulation.run(own, null);

        SimSummary.ShapeLatency faceted = drawn.shapes().get("faceted");
        assertThat(faceted.p50Ms()).isCloseTo(20, offset(0.2));
        assertThat(faceted.p99Ms()).as("a fixed time, when scaled: %s", scaled.shapes().get("faceted"))
                .isLessThan(faceted.p50Ms() * 1.05);
        SimSummary.ShapeLatency scaledFaceted = scaled.shapes().get("faceted");
        assertThat(scaledFaceted.p99Ms()).as("7.2 times the lognormal keeps its spread")
                .isGreaterThan(scaledFaceted.p50Ms() * 2);
        SimSummary.ShapeLatency sorted = drawn.shapes().get("sorted");
        assertThat(sorted.p50Ms()).isCloseTo(4, offset(0.4));
        assertThat(sorted.p99Ms()).isLessThan(6);
        SimSummary.ShapeLatency plain = drawn.shapes().get("plain");
        assertThat(plain.p99Ms()).as("plain still draws the leaf's lognormal:2ms,6ms").isGreaterThan(plain.p50Ms() * 2);
        // The load option counts the shapes' own means: 20 ms for a fifth of the searches.
        assertThat(own.with("rate", "auto").searchesPerSecond()).isLessThan(config.with("rate", "auto").searchesPerSecond());
    }

    @Test
    void refusesAShapesServiceItCannotRead() {
        assertThatThrownBy(() -> structured().with("mix-service", "faceted=fixed:1ms;faceted=fixed:2ms"))
                .hasMessageContaining("mix-service: 'faceted=fixed:2ms'");
        assertThatThrownBy(() -> structured().with("mix-service", "facets=fixed:1ms"))
                .hasMessageContaining("mix-service: 'facets=fixed:1ms'");
        assertThatThrownBy(() -> structured().with("mix-service", "faceted=gamma:1ms"))
                .hasMessageContaining("mix-service: faceted: service time kind: 'gamma'");
        assertThatThrownBy(() -> SimConfig.defaults().with("mix-service", "faceted=fixed:1ms"))
                .hasMessageContaining("(expected: none without mix structured)");
    }

    /** On shared cores the root spends root-cpu per message times the shape's mix-root-cost. */
    @Test
    void theRootsCpuPerMessageFollowsTheShapesRootCost() {
        // Well under the two cores: 20 searches a second of 4 sub-requests, about 10 root messages each.
        SimConfig config = structured().with("leaves", "4").with("queries", "1000").with("rate", "20")
                .with("cores", "2").with("root-cpu", "1ms");
        String flat = "plain=1,filtered=1,sorted=1,paged=1,faceted=1";

        SimSummary calibrated = Simulation.run(config.with("mix-cost", flat), null);
        SimSummary flatRoot = Simulation.run(config.with("mix-cost", flat).with("mix-root-cost", flat), null);

        // The same searches and leaf work; the root's share of the cores 2.865 times as large.
        assertThat(flatRoot.cpuBusyCores()).isLessThan(1);
        assertThat(calibrated.cpuBusyCores()).isGreaterThan(flatRoot.cpuBusyCores() * 1.5);
    }

    @Test
    void pickDrawsEachShapeByItsShare() {
        SplittableRandom random = new SplittableRandom(5);
        Map<SimMix.Shape, Integer> counts = new LinkedHashMap<>();
        int draws = 100_000;
        for (int i = 0; i < draws; i++) {
            counts.merge(SimMix.pick(random), 1, Integer::sum);
        }
        for (SimMix.Shape shape : SimMix.Shape.values()) {
            assertThat(counts.get(shape) / (double) draws).as(shape.label()).isCloseTo(shape.percent / 100.0,
                    offset(0.006));
        }
    }

    @Test
    void refusesAMixOrCostItCannotRead() {
        assertThatThrownBy(() -> SimConfig.defaults().with("mix", "structure"))
                .hasMessageContaining("mix: 'structure' (expected: none or structured)");
        assertThatThrownBy(() -> SimConfig.defaults().with("mix-cost", "plain=1,faceted=7"))
                .hasMessageContaining("mix-cost: 'plain=1,faceted=7' (expected: every shape");
        assertThatThrownBy(() -> SimConfig.defaults().with("mix-root-cost", SimMix.DEFAULT_COST.replace("paged=1.5",
                "paged=0"))).hasMessageContaining("mix-root-cost: 'paged=0'");
        assertThatThrownBy(() -> SimConfig.defaults().with("mix-cost", SimMix.DEFAULT_COST + ",plain=2"))
                .hasMessageContaining("'plain=2'");
    }

    private static Map<String, Object> withoutWallClock(SimSummary run) {
        Map<String, Object> json = new LinkedHashMap<>(run.toJson());
        json.keySet().removeAll(List.of("wall_s", "events_per_s", "subrequests_per_min"));
        return json;
    }
}
