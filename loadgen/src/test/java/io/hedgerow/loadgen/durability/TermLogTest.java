package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TermLogTest {
    @TempDir
    Path run;

    @Test
    void saysItCheckedNothingWithoutATermLog() throws Exception {
        TermLog terms = TermLog.read(run);

        assertThat(terms.active()).isFalse();
        assertThat(terms.describe()).isEqualTo("split terms 0 (no term log: checked nothing)");
    }

    @Test
    void findsATermWithTwoPrimariesAcrossLeavesLogs() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), """
                # time partition term node
                2026-11-28T06:00:00.100Z 3 6 leaf-0
                2026-11-28T06:00:05.200Z 3 7 leaf-0
                2026-11-28T06:00:05.300Z 4 7 leaf-0
                """);
        Files.writeString(run.resolve("terms/leaf-1.log"), """
                2026-11-28T06:00:05.250Z 3 7 leaf-1
                2026-11-28T06:00:09.000Z 3 8 leaf-1
                """);

        TermLog terms = TermLog.read(run);

        assertThat(terms.active()).isTrue();
        assertThat(terms.changes()).isEqualTo(5);
        assertThat(terms.splitTerms()).containsExactly("partition 3 term 7: leaf-0, leaf-1");
        assertThat(terms.describe()).isEqualTo("split terms 1");
    }

    @Test
    void aCleanLogChecksToZero() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), "2026-11-28T06:00:00Z 0 1 leaf-0\n2026-11-28T06:00:01Z 0 2 leaf-1\n");

        assertThat(TermLog.read(run).describe()).isEqualTo("split terms 0");
    }

    @Test
    void refusesALineItCannotRead() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), "2026-11-28T06:00:00Z 0 leaf-0\n");

        assertThatThrownBy(() -> TermLog.read(run))
                .hasMessage("leaf-0.log: '2026-11-28T06:00:00Z 0 leaf-0' (expected: TIME PARTITION TERM NODE)");
    }
}
