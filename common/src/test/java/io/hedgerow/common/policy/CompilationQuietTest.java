package io.hedgerow.common.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The warm-up's JIT rule, scripted reading by reading (2 s apart, 5% busy allowed: 100 ms). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CompilationQuietTest {
    private static final long TWO_SECONDS = 2_000_000_000L;

    private final CompilationQuiet quiet = new CompilationQuiet(0.05, 2);
    private long now;

    private boolean read(long rootMillis, long leafMillis) {
        quiet.reading(now, Map.of("root", rootMillis, "leaf-0", leafMillis));
        now += TWO_SECONDS;
        return quiet.quiet();
    }

    @Test
    void quietOnceEveryJvmCompilesLittleForTheStableReadings() {
        assertThat(read(20_000, 40_000)).isFalse(); // the first reading compares with nothing
        assertThat(read(21_800, 41_900)).isFalse(); // both compiled for most of the interval
        assertThat(read(21_850, 41_950)).isFalse(); // one quiet interval
        assertThat(read(21_900, 42_000)).isTrue(); // two
        assertThat(read(21_900, 42_000)).isTrue();
    }

    @Test
    void oneBusyJvmKeepsItFromQuiet() {
        read(1_000, 1_000);
        read(1_000, 1_000);
        assertThat(read(1_000, 1_000)).isTrue();
        assertThat(read(1_000, 1_150)).isFalse(); // the leaf compiled 150 ms in 2 s: a new path got hot
        assertThat(read(1_000, 1_150)).isFalse();
        assertThat(read(1_000, 1_150)).isTrue();
    }

    @Test
    void aJvmThatCannotBeReadDoesNotCountButOneReadForTheFirstTimeRestartsTheWait() {
        quiet.reading(0, Map.of("root", 500L));
        quiet.reading(TWO_SECONDS, Map.of("root", 510L));
        quiet.reading(2 * TWO_SECONDS, Map.of("root", 520L));
        assertThat(quiet.quiet()).isTrue(); // leaf-0 unreadable so far: only the root counts
        quiet.reading(3 * TWO_SECONDS, Map.of("root", 530L, "leaf-0", 9_000L));
        assertThat(quiet.quiet()).isFalse(); // nothing to compare the leaf's 9 s with yet
        quiet.reading(4 * TWO_SECONDS, Map.of("root", 540L, "leaf-0", 9_010L));
        quiet.reading(5 * TWO_SECONDS, Map.of("root", 550L, "leaf-0", 9_020L));
        assertThat(quiet.quiet()).isTrue();
    }

    @Test
    void theAllowanceScalesWithTheInterval() {
        quiet.reading(0, Map.of("root", 0L));
        quiet.reading(4 * TWO_SECONDS, Map.of("root", 390L)); // 390 ms in 8 s: under 5%
        quiet.reading(5 * TWO_SECONDS, Map.of("root", 490L)); // 100 ms in 2 s: just 5%
        assertThat(quiet.quiet()).isTrue();
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new CompilationQuiet(-0.1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CompilationQuiet(0.05, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
