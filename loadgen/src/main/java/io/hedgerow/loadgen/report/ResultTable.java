package io.hedgerow.loadgen.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The results of phases as an aligned text table, one row per phase, for the terminal and
 * {@code report.txt}. Latencies are in milliseconds, the average and standard deviation from the
 * same samples as the percentiles; a value that is not known shows as "n/a". The last column is
 * the mean document coverage of the tainted answers (0..1).
 */
public final class ResultTable {
    private static final String[] HEADER = {"phase", "mode", "target/s", "achieved/s", "count", "errors", "dropped",
            "avg", "stddev", "p50", "p90", "p95", "p99", "p99.9", "max", "tainted%", "extra leaf%", "both ran%",
            "tainted cov"};
    /** Columns of text, aligned left; the rest are numbers, aligned right. */
    private static final int TEXT_COLUMNS = 2;

    private ResultTable() {
    }

    /** One row per phase, labelled with the phase's name. */
    public static String render(List<PhaseResult> phases) {
        return renderRows(phases.stream().map(phase -> new Row(phase.name(), phase)).toList());
    }

    /**
     * A row: the label replaces the phase's name in the first column (a comparison labels rows
     * {@code run/phase}).
     */
    public record Row(String label, PhaseResult phase) {
    }

    /** Renders rows under the header, then a line that says what the latencies are. */
    public static String renderRows(List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        cells.add(HEADER);
        for (Row row : rows) {
            cells.add(cells(row.label(), row.phase()));
        }
        int[] widths = new int[HEADER.length];
        for (String[] line : cells) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder table = new StringBuilder();
        for (String[] line : cells) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                if (i > 0) {
                    text.append("  ");
                }
                String padding = " ".repeat(widths[i] - line[i].length());
                text.append(i < TEXT_COLUMNS ? line[i] + padding : padding + line[i]);
            }
            table.append(text.toString().stripTrailing()).append('\n');
        }
        table.append("Latency in ms, counted from each request's intended start (open loop) or its send (closed loop).\n");
        return table.toString();
    }

    private static String[] cells(String label, PhaseResult phase) {
        return new String[] {
            label,
            phase.mode(),
            phase.targetRate() > 0 ? String.format(Locale.ROOT, "%.0f", phase.targetRate()) : "-",
            String.format(Locale.ROOT, "%.1f", phase.achievedRate()),
            Long.toString(phase.count()),
            Long.toString(phase.errors()),
            Long.toString(phase.dropped()),
            phase.count() == 0 ? "n/a" : formatMillis(phase.meanMillis()),
            phase.count() == 0 ? "n/a" : formatMillis(phase.stdDevMillis()),
            millis(phase, 50),
            millis(phase, 90),
            millis(phase, 95),
            millis(phase, 99),
            millis(phase, 99.9),
            phase.count() == 0 ? "n/a" : formatMillis(phase.maxMillis()),
            String.format(Locale.ROOT, "%.2f", phase.taintedPct()),
            percent(phase.extraLeafRequestsPct()),
            percent(phase.tiedBothRanPct()),
            coverage(phase.taintedCoverage()),
        };
    }

    static String millis(PhaseResult phase, double percentile) {
        return phase.count() == 0 ? "n/a" : formatMillis(phase.percentileMillis(percentile));
    }

    /** A fraction 0..1 to three decimals, or "n/a" when not known (e.g. nothing was tainted). */
    static String coverage(Double fraction) {
        return fraction == null ? "n/a" : String.format(Locale.ROOT, "%.3f", fraction);
    }

    /** Two decimals, or "n/a" when not known. */
    static String percent(Double pct) {
        return pct == null ? "n/a" : String.format(Locale.ROOT, "%.2f", pct);
    }

    /**
     * To the microsecond (the histograms' unit) below 10 ms, then four significant digits (the
     * histograms keep three): 0.083, 1.234, 12.34, 123.4, 12345.
     */
    public static String formatMillis(double millis) {
        String pattern = millis < 10 ? "%.3f" : millis < 100 ? "%.2f" : millis < 1000 ? "%.1f" : "%.0f";
        return String.format(Locale.ROOT, pattern, millis);
    }
}
