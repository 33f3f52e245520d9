package io.hedgerow.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ceiling's pure parts: its merge of per-partition answers and its command line. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServingCeilingPartsTest {

    @Test
    void mergeKeepsTheBestKByScoreThenPartition() {
        SearchResponse.Builder p0 = answer(0, hit("a", 3.0f, 5), hit("b", 1.0f, 6));
        SearchResponse.Builder p1 = answer(1, hit("c", 2.0f, 1), hit("d", 1.0f, 2));
        SearchResponse.Builder p2 = answer(2, hit("e", 3.0f, 0));

        List<TopHits.Winner> top = TopHits.merge(List.of(p2, p1, p0), 4);

        // 3.0 twice (partition 0 first on the tie), then 2.0, then 1.0 of partition 0 before partition 1's.
        assertThat(top).extracting(TopHits.Winner::id).containsExactly("a", "e", "c", "b");
        assertThat(top).extracting(TopHits.Winner::partition).containsExactly(0, 2, 1, 0);
    }

    @Test
    void mergeOfFewerHitsThanKReturnsThemAll() {
        assertThat(TopHits.merge(List.of(answer(3, hit("x", 1.0f, 0)), answer(4)), 10))
                .containsExactly(new TopHits.Winner(3, "x", 1.0f));
        assertThatThrownBy(() -> TopHits.merge(List.of(), 0)).hasMessageContaining("k: 0 (expected: >= 1)");
    }

    @Test
    void optionsDefaultToTheProcessorsAndTheGeneratorsSeed() {
        CeilingOptions options = CeilingOptions.parse(new String[0], Path.of("d"), 3);

        assertThat(options).isEqualTo(new CeilingOptions(Path.of("d"), null, CeilingOptions.Mode.FULL, 3,
                Duration.ofSeconds(10), Duration.ofSeconds(30), 42));
    }

    @Test
    void optionsReadBothSpellings() {
        CeilingOptions options = CeilingOptions.parse(new String[] {"--mode=raw", "--threads", "2", "--warmup=0s",
                "--duration", "1.5s", "--seed", "7", "--data", "/x", "--queries=q.tsv"}, Path.of("d"), 3);

        assertThat(options).isEqualTo(new CeilingOptions(Path.of("/x"), Path.of("q.tsv"), CeilingOptions.Mode.RAW, 2,
                Duration.ZERO, Duration.ofMillis(1500), 7));
    }

    @Test
    void badOptionsAreNamedWithWhatWasExpected() {
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--mode", "fast"}, Path.of("d"), 1))
                .hasMessage("--mode: 'fast' (expected: full or raw)");
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--threads", "0"}, Path.of("d"), 1))
                .hasMessage("--threads: 0 (expected: >= 1)");
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--duration", "0s"}, Path.of("d"), 1))
                .hasMessageContaining("--duration: PT0S (expected: > 0)");
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--warmup", "soon"}, Path.of("d"), 1))
                .hasMessageStartingWith("--warmup: 'soon' is not a duration");
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--threads"}, Path.of("d"), 1))
                .hasMessage("--threads: missing value");
        assertThatThrownBy(() -> CeilingOptions.parse(new String[] {"--fast"}, Path.of("d"), 1))
                .hasMessageStartingWith("unknown option '--fast'");
    }

    private static SearchResponse.Builder answer(int partition, Hit... hits) {
        return SearchResponse.newBuilder().setPartition(partition).addAllHits(List.of(hits));
    }

    private static Hit hit(String id, float score, int doc) {
        return Hit.newBuilder().setId(id).setScore(score).setDoc(doc).build();
    }
}
