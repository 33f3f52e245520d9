package io.hedgerow.root.sim;

import io.hedgerow.common.stats.PercentileCurve;
import java.awt.AWTError;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * A series of simulations as PNG charts, on the load generator's axes (both take their curves from
 * {@link PercentileCurve}):
 * <ul>
 *   <li>{@link #LATENCY}: latency by percentile, one curve per run, on the "nines" axis (a
 *       percentile p at {@code 1 / (1 - p)}, log scale), log latency;</li>
 *   <li>{@link #P999}: when the first swept option is numeric (leaves, load), the p99.9 against it,
 *       one line per value of the other swept options (a policy), both axes log.</li>
 * </ul>
 */
public final class SimCharts {
    public static final String LATENCY = "latency.png";
    public static final String P999 = "p999.png";
    private static final int WIDTH = 1200;
    private static final int HEIGHT = 700;
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
            new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
            new Color(0xbcbd22), new Color(0x17becf)};

    private SimCharts() {
    }

    /**
     * Writes the charts of {@code runs} into {@code dir}.
     *
     * @param swept the options the series varies, the first one the x axis of {@link #P999}
     * @throws IOException also when AWT cannot draw (no fonts, native libraries missing)
     */
    public static void write(Path dir, String title, List<String> swept, List<SimSummary> runs) throws IOException {
        try {
            save(latencyChart(title, swept, runs), dir.resolve(LATENCY));
            if (!swept.isEmpty() && runs.size() > 1 && numeric(swept.getFirst(), runs)) {
                save(p999Chart(title, swept, runs), dir.resolve(P999));
            }
        } catch (RuntimeException | LinkageError | AWTError e) {
            throw new IOException(dir + ": cannot draw the charts (" + e + ")", e);
        }
    }

    private static void save(XYChart chart, Path png) throws IOException {
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static XYChart latencyChart(String title, List<String> swept, List<SimSummary> runs) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("Percentile (each step right is one more nine)").yAxisTitle("Search latency (ms)").build();
        style(chart);
        double maxX = 10;
        for (SimSummary run : runs) {
            double[][] xy = PercentileCurve.points(run.histogram());
            if (xy[0].length > 0) {
                chart.addSeries(label(run, swept, List.of()), xy[0], xy[1]);
                maxX = Math.max(maxX, xy[0][xy[0].length - 1]);
            }
        }
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setXAxisMin(1.0);
        chart.getStyler().setXAxisMax(Math.pow(10, Math.ceil(Math.log10(maxX))));
        chart.getStyler().setxAxisTickLabelsFormattingFunction(SimCharts::percentileLabel);
        chart.getStyler().setYAxisLogarithmic(true);
        return chart;
    }

    private static XYChart p999Chart(String title, List<String> swept, List<SimSummary> runs) {
        String xOption = swept.getFirst();
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xOption).yAxisTitle("p99.9 search latency (ms)").build();
        style(chart);
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        for (SimSummary run : runs) {
            double x = Double.parseDouble(run.options().get(xOption));
            minX = Math.min(minX, x);
            maxX = Math.max(maxX, x);
            String line = label(run, swept, List.of(xOption));
            lines.computeIfAbsent(line.isEmpty() ? "p99.9" : line, k -> new ArrayList<>())
                    .add(new double[] {x, Math.max(run.p999Ms(), 0.001)});
        }
        for (Map.Entry<String, List<double[]>> line : lines.entrySet()) {
            List<double[]> points = line.getValue();
            chart.addSeries(line.getKey(), points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray());
        }
        chart.getStyler().setXAxisLogarithmic(maxX / minX >= 10);
        chart.getStyler().setYAxisLogarithmic(true);
        return chart;
    }

    private static void style(XYChart chart) {
        var styler = chart.getStyler();
        styler.setSeriesColors(PALETTE);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(232, 232, 232));
        styler.setChartTitleBoxVisible(false);
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setChartPadding(12);
        styler.setyAxisTickLabelsFormattingFunction(SimCharts::millisLabel);
    }

    /** 0.5, 20, 1000: the milliseconds as written, not 1E3. */
    static String millisLabel(double millis) {
        return millis >= 10 ? String.format(Locale.ROOT, "%.0f", millis) : String.format(Locale.ROOT, "%.2g", millis);
    }

    /** The run's values of the swept options but {@code except}: "policy=hedged leaves=100". */
    private static String label(SimSummary run, List<String> swept, List<String> except) {
        StringBuilder label = new StringBuilder();
        for (String option : swept) {
            if (!except.contains(option)) {
                label.append(label.isEmpty() ? "" : " ").append(option).append('=').append(run.options().get(option));
            }
        }
        return label.isEmpty() ? "search latency" : label.toString();
    }

    private static boolean numeric(String option, List<SimSummary> runs) {
        for (SimSummary run : runs) {
            try {
                if (!(Double.parseDouble(run.options().get(option)) > 0)) {
                    return false;
                }
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return true;
    }

    /** "0%" at x = 1, "90%" at 10, "99%" at 100, "99.9%" at 1000; other ticks unlabelled. */
    static String percentileLabel(double x) {
        String nines = PercentileCurve.ninesLabel(x);
        return nines != null ? nines : "";
    }
}
