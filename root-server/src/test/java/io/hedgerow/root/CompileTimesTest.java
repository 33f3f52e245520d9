package io.hedgerow.root;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The warm-up reads a leaf's compilation time from the Prometheus text of its /metrics. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CompileTimesTest {
    @Test
    void readsTheCompilationTimeLineWhateverItsLabels() {
        String text = """
                # HELP jvm_compilation_time_ms_total The approximate accumulated elapsed time spent in compilation
                # TYPE jvm_compilation_time_ms_total counter
                jvm_compilation_time_ms_total{compiler="HotSpot 64-Bit Tiered Compilers"} 51250.0
                jvm_compilation_time_ms_totals 7.0
                """;
        assertThat(CompileTimes.totalMillis(text)).isEqualTo(51_250L);
        assertThat(CompileTimes.totalMillis("jvm_compilation_time_ms_total 12.5\n")).isEqualTo(12L);
    }

    @Test
    void nullWhenTheLineIsMissingOrBroken() {
        assertThat(CompileTimes.totalMillis("jvm_compilation_time_ms_totals 7.0\nprocess_uptime_seconds 3.0\n")).isNull();
        assertThat(CompileTimes.totalMillis("jvm_compilation_time_ms_total{} NaNx\n")).isNull();
    }
}
