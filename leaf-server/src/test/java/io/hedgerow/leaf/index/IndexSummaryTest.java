package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexSummaryTest {

    @Test
    void rendersDocsPartitionsTimeRateAndSize() {
        IndexSummary summary = new IndexSummary("europarl", Path.of("/data/europarl"), 17_597, 17_597, 16,
                38_512_345, 4_100_000_000L, 0, List.of());

        assertThat(summary.render().lines()).containsExactly(
                "indexed 17,597 docs into 16 partitions in 4.1 s (4,292 docs/s)",
                "index 'europarl' in " + Path.of("/data/europarl") + ", 38.5 MB on disk");
    }

    @Test
    void rendersReplacedDocsAndSkippedLines() {
        IndexSummary summary = new IndexSummary("docs", Path.of("/d"), 3, 4, 2, 812, 1_000_000_000L, 1,
                List.of(new BadLine(7, "missing 'id'")));

        assertThat(summary.render().lines()).containsExactly(
                "indexed 3 docs into 2 partitions in 1.0 s (4 docs/s)",
                "1 doc replaced an earlier doc with the same id",
                "index 'docs' in " + Path.of("/d") + ", 812 bytes on disk",
                "skipped 1 bad line:",
                "  line 7: missing 'id'");
    }

    @Test
    void formatsSizesInDecimalUnits() {
        assertThat(IndexSummary.humanBytes(999)).isEqualTo("999 bytes");
        assertThat(IndexSummary.humanBytes(34_200)).isEqualTo("34.2 KB");
        assertThat(IndexSummary.humanBytes(999_960)).isEqualTo("1.0 MB");
        assertThat(IndexSummary.humanBytes(1_234_000_000)).isEqualTo("1.2 GB");
    }

    @Test
    void refusesMoreKeptBadLinesThanWereSkipped() {
        assertThatThrownBy(() -> new IndexSummary("docs", Path.of("/d"), 1, 1, 1, 1, 1, 0, List.of(new BadLine(1, "x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("firstBadLines: 1 (expected: <= min(badLinesSkipped=0, 10))");
    }
}
