package io.hedgerow.loadgen.report;

import io.hedgerow.common.stats.PercentileCurve;
import java.awt.AWTError;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Latency by percentile, one curve per phase (or per run and phase when comparing), as a PNG.
 *
 * <p>The x axis is the "nines" axis of HdrHistogram's plots: a percentile p is drawn at
 * {@code 1 / (1 - p)} on a log scale, so 90%, 99%, 99.9% and 99.99% are evenly spaced and the tail
 * gets as much room as the median. Each curve ends with its maximum at {@code x = count}, where the
 * single slowest request sits. The y axis is latency in milliseconds, on a log scale when the
 * curves span more than {@link #LOG_Y_SPAN}x (a stall next to a fast median), linear from 0
 * otherwise (easier to read when the tail is flat).
 */
public final class LatencyChart {
    public static final int WIDTH = 1200;
    public static final int HEIGHT = 700;
    /** Use a log latency axis when the largest value is more than this many times the smallest median. */
    static final double LOG_Y_SPAN = 30;
    /** Distinct colours that stay readable as thin lines on white (Tableau's ten). */
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
            new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
            new Color(0xbcbd22), new Color(0x17becf)};
    private LatencyChart() {
    }

    /** One curve: a label for the legend and latency in microseconds. */
    public record Curve(String label, Histogram latencyMicros) {
    }

    /**
     * Draws the curves and writes a {@link #WIDTH} x {@link #HEIGHT} PNG to {@code png}. Needs no
     * display (run with {@code -Djava.awt.headless=true} where there is none), but AWT needs fonts.
     *
     * @throws IOException also when AWT cannot draw (no fonts, native libraries missing)
     */
    public static void write(String title, List<Curve> curves, Path png) throws IOException {
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(chart(title, curves), out, BitmapEncoder.BitmapFormat.PNG);
        } catch (RuntimeException | LinkageError | AWTError e) {
            throw new IOException(png + ": cannot draw the chart (" + e + ")", e);
        }
    }

    static XYChart chart(String title, List<Curve> curves) {
        boolean empty = curves.stream().allMatch(curve -> curve.latencyMicros().getTotalCount() == 0);
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(empty ? title + " (no request completed)" : title)
                .xAxisTitle("Percentile (each step right is one more nine)").yAxisTitle("Latency (ms)")
                .theme(Styler.ChartTheme.XChart).build();
        List<double[][]> series = new ArrayList<>();
        double maxX = 1000;
        double minY = Double.MAX_VALUE;
        double maxY = empty ? 1 : 0;
        double minMedian = Double.MAX_VALUE;
        for (Curve curve : curves) {
            double[][] points = points(curve.latencyMicros());
            series.add(points);
            if (points[0].length > 0) {
                maxX = Math.max(maxX, points[0][points[0].length - 1]);
                minY = Math.min(minY, Math.max(0.001, points[1][0]));
                maxY = Math.max(maxY, points[1][points[1].length - 1]);
                minMedian = Math.min(minMedian, Math.max(0.001, curve.latencyMicros().getValueAtPercentile(50) / 1000.0));
            }
        }
        boolean logY = maxY / minMedian > LOG_Y_SPAN;
        style(chart, Math.pow(10, Math.ceil(Math.log10(maxX) - 1e-9)), logY, minY, maxY);
        for (int i = 0; i < curves.size(); i++) {
            double[][] points = series.get(i);
            if (points[0].length == 0) {
                continue; // nothing completed: no curve, the table says so
            }
            XYSeries line = chart.addSeries(uniqueName(chart, curves.get(i).label()), points[0], points[1]);
            line.setMarker(SeriesMarkers.NONE);
            line.setLineWidth(2.5f);
        }
        return chart;
    }

    private static void style(XYChart chart, double xMax, boolean logY, double minY, double maxY) {
        var styler = chart.getStyler();
        styler.setSeriesColors(PALETTE);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(232, 232, 232));
        styler.setPlotGridLinesStroke(new BasicStroke(1f));
        styler.setPlotBorderColor(new Color(160, 160, 160));
        styler.setChartTitleBoxVisible(false);
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setLegendBorderColor(new Color(200, 200, 200));
        styler.setXAxisLogarithmic(true);
        styler.setXAxisLogarithmicDecadeOnly(true);
        styler.setXAxisMin(1.0);
        styler.setXAxisMax(xMax);
        styler.setxAxisTickLabelsFormattingFunction(LatencyChart::percentileLabel);
        if (logY) {
            // From a labelled gridline below the fastest request to one above the slowest.
            styler.setYAxisLogarithmic(true);
            styler.setYAxisLogarithmicDecadeOnly(false);
            styler.setYAxisMin(roundedDown(minY));
            styler.setYAxisMax(roundedUp(maxY));
            styler.setyAxisTickLabelsFormattingFunction(millis -> isOneTwoFive(millis) ? millisLabel(millis) : "");
        } else {
            styler.setYAxisMin(0.0);
            styler.setYAxisMax(maxY * 1.05);
            styler.setyAxisTickLabelsFormattingFunction(LatencyChart::millisLabel);
        }
        styler.setChartPadding(12);
    }

    /** The curve's points ({@link PercentileCurve#points}). */
    static double[][] points(Histogram latencyMicros) {
        return PercentileCurve.points(latencyMicros);
    }

    /** "0%" at x = 1, "90%" at 10, "99%" at 100, "99.9%" at 1000, and so on; the percentile between them. */
    static String percentileLabel(double x) {
        String nines = PercentileCurve.ninesLabel(x);
        return nines != null ? nines : String.format(Locale.ROOT, "%.4g%%", 100 * (1 - 1 / x));
    }

    /** The largest of 1, 2 or 5 times a power of ten at or below {@code value}. */
    static double roundedDown(double value) {
        double decade = Math.pow(10, Math.floor(Math.log10(value)));
        double mantissa = value / decade;
        return decade * (mantissa >= 5 ? 5 : mantissa >= 2 ? 2 : 1);
    }

    /** The smallest of 1, 2 or 5 times a power of ten at or above {@code value}. */
    static double roundedUp(double value) {
        double decade = Math.pow(10, Math.floor(Math.log10(value)));
        double mantissa = value / decade;
        return decade * (mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10);
    }

    /**
     * Whether a log axis tick is 1, 2 or 5 times a power of ten: the ones labelled, as the other
     * six of each decade would crowd the axis.
     */
    private static boolean isOneTwoFive(double value) {
        double mantissa = value / Math.pow(10, Math.floor(Math.log10(value) + 1e-9));
        return Math.abs(mantissa - 1) < 1e-6 || Math.abs(mantissa - 2) < 1e-6 || Math.abs(mantissa - 5) < 1e-6;
    }

    /** 0.05, 0.2, 1.5, 20, 1000: three significant digits, no trailing zeros. */
    static String millisLabel(double millis) {
        if (millis == 0 || !Double.isFinite(millis)) {
            return millis == 0 ? "0" : "";
        }
        return new BigDecimal(millis).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    private static String uniqueName(XYChart chart, String label) {
        String name = label;
        for (int n = 2; chart.getSeries(name) != null; n++) {
            name = label + " (" + n + ")";
        }
        return name;
    }
}
