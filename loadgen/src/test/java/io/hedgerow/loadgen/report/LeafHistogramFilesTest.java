package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A phase's per-leaf histograms on disk: one {@code .hgrm} per leaf, phase and part, and each merged over the leaves. */
class LeafHistogramFilesTest {
    @TempDir
    Path dir;

    @Test
    void writesEachLeafsAndTheMergedPercentiles() throws Exception {
        Map<String, Histogram> leaves = new LinkedHashMap<>();
        leaves.put("leaf-0-search-service", samples(100, 2_000));
        leaves.put("leaf-1-search-service", samples(300, 4_000));
        leaves.put("leaf-0-fetch-round_trip", samples(10, 900));
        Path folder = dir.resolve("steady-leaves");

        ReportWriter.writeLeaves(leaves, folder);

        assertThat(folder.resolve("leaf-0-search-service.hgrm")).exists();
        assertThat(folder.resolve("leaf-1-search-service.hgrm")).exists();
        assertThat(folder.resolve("leaf-0-fetch-round_trip.hgrm")).exists();
        String merged = Files.readString(folder.resolve("all-search-service.hgrm"));
        assertThat(merged).containsPattern("Total count += +400\\]");
        assertThat(merged).contains("Value     Percentile");
        assertThat(Files.readString(folder.resolve("all-fetch-round_trip.hgrm"))).containsPattern("Total count += +10\\]");
    }

    @Test
    void writesNothingWithoutLeaves() throws Exception {
        ReportWriter.writeLeaves(Map.of(), dir.resolve("none"));
        assertThat(dir.resolve("none")).doesNotExist();
    }

    private static Histogram samples(int count, long micros) {
        Histogram histogram = new Histogram(3);
        histogram.recordValueWithCount(micros, count);
        return histogram;
    }
}
