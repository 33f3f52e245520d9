package io.hedgerow.benchmarks;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.merge.HitMerger;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The root's merge of per-partition top-k lists into the global top k.
 *
 * <p>How to run (after {@code mvn -B -DskipTests package}):
 * <pre>
 * java --add-modules=jdk.incubator.vector -jar benchmarks/target/hedgerow-benchmarks.jar HitMergerBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HitMergerBenchmark {
    @Param({"16", "64"})
    int partitions;

    @Param({"10", "100"})
    int k;

    private SearchResponse[] answers;

    @Setup
    public void setUp() {
        Random random = new Random(42);
        answers = new SearchResponse[partitions];
        for (int p = 0; p < partitions; p++) {
            SearchResponse.Builder answer = SearchResponse.newBuilder();
            float score = 20f;
            for (int i = 0; i < k; i++) {
                score -= random.nextFloat();
                answer.addHits(Hit.newBuilder().setId(p + "-" + i).setScore(score).setDoc(i));
            }
            answers[p] = answer.build();
        }
    }

    @Benchmark
    public List<HitMerger.MergedHit> merge() {
        return HitMerger.merge(answers, k);
    }
}
