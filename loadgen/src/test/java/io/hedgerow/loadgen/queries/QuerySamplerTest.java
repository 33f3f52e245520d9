package io.hedgerow.loadgen.queries;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuerySamplerTest {
    private static final long SEED = 20261122L;
    private static final int PICKS = 100_000;

    /** Categories of different sizes, so a per-query pick cannot pass for a per-category one. */
    private static QuerySet set() {
        Map<String, List<String>> categories = new LinkedHashMap<>();
        int[] sizes = {50, 7, 200, 1, 13};
        String[] names = {"high_term", "phrase", "large_or", "prefix", "low_term"};
        for (int c = 0; c < names.length; c++) {
            List<String> queries = new ArrayList<>();
            for (int q = 0; q < sizes[c]; q++) {
                queries.add(names[c] + " " + q);
            }
            categories.put(names[c], queries);
        }
        return new QuerySet(List.of(), categories);
    }

    @Test
    void picksCategoriesInProportionToTheirWeights() {
        System.out.println("QuerySamplerTest seed " + SEED);
        QuerySet set = set();
        QueryMix mix = QueryMix.parse("high_term=30,phrase=10,large_or=2,prefix=0.5,low_term=0");
        QuerySampler sampler = QuerySampler.of(set, mix, SEED);
        List<String> categoryOf = QuerySampler.categoryOfEach(set);

        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < PICKS; i++) {
            counts.merge(categoryOf.get(sampler.next()), 1, Integer::sum);
        }

        for (String category : set.categoryNames()) {
            double p = mix.share(category);
            double expected = p * PICKS;
            // Six standard deviations of a binomial count: a correct sampler is outside this
            // about once in 10^9 seeds, a wrong weighting by far more.
            double bound = 6 * Math.sqrt(PICKS * p * (1 - p)) + 1;
            assertThat((double) counts.getOrDefault(category, 0)).as(category).isCloseTo(expected,
                    org.assertj.core.data.Offset.offset(bound));
        }
        assertThat(counts).doesNotContainKey("low_term");
    }

    @Test
    void picksQueriesUniformlyWithinACategory() {
        QuerySet set = set();
        QuerySampler sampler = QuerySampler.of(set, QueryMix.parse("large_or=1"), SEED);
        int[] counts = new int[set.size()];
        for (int i = 0; i < PICKS; i++) {
            counts[sampler.next()]++;
        }
        int first = set.queries("high_term").size() + set.queries("phrase").size();
        double expected = PICKS / 200.0;
        double bound = 6 * Math.sqrt(expected);
        for (int q = first; q < first + 200; q++) {
            assertThat((double) counts[q]).as("query %d", q).isCloseTo(expected, org.assertj.core.data.Offset.offset(bound));
        }
    }

    @Test
    void sameSeedGivesTheSamePicksAndAnotherSeedOthers() {
        QuerySet set = set();
        QueryMix mix = QueryMix.parse("high_term=3,phrase=1,large_or=1");
        QuerySampler a = QuerySampler.of(set, mix, SEED);
        QuerySampler b = QuerySampler.of(set, mix, SEED);
        QuerySampler c = QuerySampler.of(set, mix, SEED + 1);
        int[] picksA = new int[1000];
        int[] picksB = new int[1000];
        int[] picksC = new int[1000];
        for (int i = 0; i < 1000; i++) {
            picksA[i] = a.next();
            picksB[i] = b.next();
            picksC[i] = c.next();
        }
        assertThat(picksA).isEqualTo(picksB).isNotEqualTo(picksC);
    }

    @Test
    void aPickAllocatesNothing() {
        QuerySampler sampler = QuerySampler.of(set(), QueryMix.parse("high_term=30,phrase=10,large_or=2,prefix=1"), SEED);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < PICKS; i++) {
            sink += sampler.next(); // warm up, so the measured loop runs compiled code
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < PICKS; i++) {
            sink += sampler.next();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isPositive();
        // A single allocation per pick would be 1.6 MB or more; allow for the bean's own few bytes.
        assertThat(allocated).as("bytes allocated by %d picks", PICKS).isLessThan(PICKS / 10);
    }

    @Test
    void aliasTableReproducesItsWeights() {
        double[] weights = {5, 0, 1, 3, 0.25};
        AliasTable table = new AliasTable(weights);
        java.util.SplittableRandom random = new java.util.SplittableRandom(SEED);
        int[] counts = new int[weights.length];
        for (int i = 0; i < PICKS; i++) {
            counts[table.pick(random)]++;
        }
        double total = 9.25;
        for (int i = 0; i < weights.length; i++) {
            double p = weights[i] / total;
            double bound = 6 * Math.sqrt(PICKS * p * (1 - p)) + 1;
            assertThat((double) counts[i]).as("index %d", i).isCloseTo(p * PICKS, org.assertj.core.data.Offset.offset(bound));
        }
        assertThat(counts[1]).isZero();
    }
}
