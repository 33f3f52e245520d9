package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyChartTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path dir;

    @Test
    void writesAPngOfTheChartsSize() throws IOException {
        Path png = dir.resolve("latency.png");

        LatencyChart.write("Latency by percentile: test", List.of(
                new LatencyChart.Curve("steady", TestPhases.knownLatency()),
                new LatencyChart.Curve("closed", TestPhases.randomPhase("closed", 20_000, 900, 11).latency()),
                new LatencyChart.Curve("nothing completed", new Histogram(3))), png);

        byte[] bytes = Files.readAllBytes(png);
        assertThat(Arrays.copyOf(bytes, PNG_SIGNATURE.length)).isEqualTo(PNG_SIGNATURE);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(LatencyChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(LatencyChart.HEIGHT);
        assertThat(distinctColours(image)).as("more than a blank canvas").isGreaterThan(20);
    }

    @Test
    void plotsPercentilesOnTheNinesAxisFromTheMinimumToTheMaximum() {
        Histogram latency = TestPhases.knownLatency();

        double[][] points = LatencyChart.points(latency);

        double[] x = points[0];
        double[] y = points[1];
        assertThat(x[0]).isEqualTo(1.0);
        assertThat(y[0]).isEqualTo(2.0);
        assertThat(x[x.length - 1]).as("the slowest request of 1000 sits at 1/(1 - 0.999)").isEqualTo(1000.0);
        assertThat(y[y.length - 1]).isEqualTo(1500.159);
        for (int i = 1; i < x.length; i++) {
            assertThat(x[i]).isGreaterThan(x[i - 1]);
            assertThat(y[i]).isGreaterThanOrEqualTo(y[i - 1]);
        }
        // p90 is at x = 10: the last point at or before it is the 2 ms or the 8 ms bucket, never more.
        int upToP90 = (int) Arrays.stream(x).filter(value -> value <= 10).count();
        assertThat(y[upToP90 - 1]).isLessThanOrEqualTo(8.003);
    }

    @Test
    void labelsTheNinesAxisInPercent() {
        assertThat(LatencyChart.percentileLabel(1)).isEqualTo("0%");
        assertThat(LatencyChart.percentileLabel(10)).isEqualTo("90%");
        assertThat(LatencyChart.percentileLabel(100)).isEqualTo("99%");
        assertThat(LatencyChart.percentileLabel(1000)).isEqualTo("99.9%");
        assertThat(LatencyChart.percentileLabel(100_000)).isEqualTo("99.999%");
        assertThat(LatencyChart.percentileLabel(2)).isEqualTo("50.00%");
    }

    @Test
    void usesALogLatencyAxisOnlyForAWideRange() {
        Histogram narrow = TestPhases.randomPhase("a", 1000, 1000, 1).latency();
        assertThat(LatencyChart.chart("t", List.of(new LatencyChart.Curve("a", narrow))).getStyler().isYAxisLogarithmic())
                .isFalse();
        assertThat(LatencyChart.chart("t", List.of(new LatencyChart.Curve("a", TestPhases.knownLatency())))
                .getStyler().isYAxisLogarithmic()).as("1.5 s max over a 2 ms median").isTrue();
    }

    @Test
    void boundsALogLatencyAxisByOneTwoFiveValues() {
        assertThat(LatencyChart.roundedDown(0.04)).isEqualTo(0.02, within(1e-12));
        assertThat(LatencyChart.roundedDown(7.5)).isEqualTo(5, within(1e-12));
        assertThat(LatencyChart.roundedDown(100)).isEqualTo(100, within(1e-9));
        assertThat(LatencyChart.roundedUp(150.8)).isEqualTo(200, within(1e-9));
        assertThat(LatencyChart.roundedUp(1500)).isEqualTo(2000, within(1e-9));
        assertThat(LatencyChart.roundedUp(6)).isEqualTo(10, within(1e-9));
    }

    @Test
    void labelsLatencyWithoutTrailingZeros() {
        assertThat(LatencyChart.millisLabel(0)).isEqualTo("0");
        assertThat(LatencyChart.millisLabel(0.05)).isEqualTo("0.05");
        assertThat(LatencyChart.millisLabel(2.5)).isEqualTo("2.5");
        assertThat(LatencyChart.millisLabel(100)).isEqualTo("100");
        assertThat(LatencyChart.millisLabel(2000)).isEqualTo("2000");
    }

    private static long distinctColours(BufferedImage image) {
        return java.util.stream.IntStream.range(0, image.getWidth() * image.getHeight())
                .map(i -> image.getRGB(i % image.getWidth(), i / image.getWidth())).distinct().count();
    }
}
