package io.hedgerow.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ceiling's command line (its merge is the root's HitMerger, tested in root-server). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServingCeilingPartsTest {

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
}
