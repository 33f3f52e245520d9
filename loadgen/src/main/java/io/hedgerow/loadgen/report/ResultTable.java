package io.hedgerow.loadgen.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The results of phases as an aligned text table, one row per phase, for the terminal and
 * {@code report.txt}. Latencies are of the answers (complete and tainted), in milliseconds; errors
 * are counted apart. A percentile with fewer than {@link PhaseResult#SAMPLES_BEYOND} answers
 * beyond it is shown with a {@code ~}; a value that is not known shows as "n/a". The last column
 * says whether the phase measured the server ({@code ok}) or why not. Under the table: how fast
 * each phase's refusals came back (at the generator and at the root), then the problems.
 */
public final class ResultTable {
    private static final String[] HEADER = {"phase", "mode", "target/s", "achieved/s", "goodput/s", "errors", "err%",
            "dropped", "p50", "p90", "p99", "p99.9", "max", "tainted%", "tainted cov", "extra leaf%", "root p99",
            "lag p99", "check"};
    /** Columns of text, aligned left; the rest are numbers, aligned right, but the last. */
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

    /** Renders rows under the header, then what the numbers are, then each phase's problems. */
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
                boolean left = i < TEXT_COLUMNS || i == line.length - 1;
                text.append(left ? line[i] + padding : padding + line[i]);
            }
            table.append(text.toString().stripTrailing()).append('\n');
        }
        table.append("Latency in ms of the answers (complete and tainted), counted from each request's intended start (open"
                + " loop) or its send (closed loop); errors apart. ~: fewer than " + PhaseResult.SAMPLES_BEYOND
                + " answers beyond that percentile. root p99: the root's own time, first byte in to last byte out."
                + " lag: the generator's lateness.\n");
        for (Row row : rows) {
            String refusals = refusals(row.phase());
            if (refusals != null) {
                table.append("  ").append(row.label()).append(": ").append(refusals).append('\n');
            }
        }
        for (Row row : rows) {
            for (String problem : row.phase().problems()) {
                table.append("  ").append(row.label()).append(": ").append(problem).append('\n');
            }
        }
        return table.toString();
    }

    private static String[] cells(String label, PhaseResult phase) {
        return new String[] {
            label,
            phase.mode(),
            phase.targetRate() > 0 ? String.format(Locale.ROOT, "%.0f", phase.targetRate()) : "-",
            String.format(Locale.ROOT, "%.1f", phase.achievedRate()),
            String.format(Locale.ROOT, "%.1f", phase.goodputPerSecond()),
            Long.toString(phase.errors()),
            String.format(Locale.ROOT, "%.2f", phase.errorRate() * 100),
            Long.toString(phase.dropped()),
            millis(phase, 50),
            millis(phase, 90),
            millis(phase, 99),
            millis(phase, 99.9),
            phase.latency().getTotalCount() == 0 ? "n/a" : formatMillis(phase.maxMillis()),
            String.format(Locale.ROOT, "%.2f", phase.taintedPct()),
            coverage(phase.taintedCoverage()),
            percent(phase.root().extraLeafRequestsPct()),
            rootP99(phase),
            phase.sent() == 0 ? "n/a" : formatMillis(phase.lagMillis(99)),
            check(phase),
        };
    }

    /** The answers' latency at a percentile, {@code ~}-marked when the sample cannot support it. */
    static String millis(PhaseResult phase, double percentile) {
        if (phase.latency().getTotalCount() == 0) {
            return "n/a";
        }
        String value = formatMillis(phase.percentileMillis(percentile));
        return phase.supports(percentile) ? value : "~" + value;
    }

    /**
     * How fast the phase's refusals came back, at the generator (from the intended start) and at
     * the root (its own time, {@link RootView.Latency#refused}); null when neither saw one. Shown
     * under the table, not in it: most phases refuse nothing.
     */
    static String refusals(PhaseResult phase) {
        Histogram root = phase.root().latency() == null ? null : phase.root().latency().refused();
        boolean rootRefused = root != null && root.getTotalCount() > 0;
        if (phase.refused() == 0 && !rootRefused) {
            return null;
        }
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "refusals: %,d (%.2f%% of requests)",
                phase.refused(), phase.count() == 0 ? 0.0 : 100.0 * phase.refused() / phase.count()));
        if (phase.refused() > 0) {
            Histogram refused = phase.latencies().refused();
            text.append(", answered in p50 ").append(refusedMillis(refused, 50))
                    .append(" / p99 ").append(refusedMillis(refused, 99))
                    .append(" / p99.9 ").append(refusedMillis(refused, 99.9))
                    .append(" / max ").append(formatMillis(refused.getMaxValue() / 1000.0)).append(" ms");
        }
        text.append("; root refusal p99 ").append(rootRefused ? refusedMillis(root, 99) + " ms"
                + String.format(Locale.ROOT, " (%,d refused at the root)", root.getTotalCount()) : "n/a");
        return text.toString();
    }

    /** A refusal latency percentile in ms, {@code ~}-marked when too few refusals lie beyond it. */
    private static String refusedMillis(Histogram micros, double percentile) {
        String value = formatMillis(micros.getValueAtPercentile(percentile) / 1000.0);
        return micros.getTotalCount() * (1 - percentile / 100) >= PhaseResult.SAMPLES_BEYOND - 1e-9 ? value : "~" + value;
    }

    static String rootP99(PhaseResult phase) {
        RootView.Latency root = phase.root().latency();
        if (root == null || root.answered().getTotalCount() == 0) {
            return "n/a";
        }
        return formatMillis(root.answered().getValueAtPercentile(99) / 1000.0);
    }

    /** "ok", or the flags that say why the phase is not a clean measurement. */
    static String check(PhaseResult phase) {
        List<String> flags = new ArrayList<>();
        if (!phase.lagValid()) {
            flags.add("INVALID(lag)");
        }
        if (phase.errorFlagged()) {
            flags.add("ERRORS");
        }
        if (!phase.faults().clean()) {
            flags.add("FAULT-FAILED");
        }
        if (!phase.notes().isEmpty()) {
            flags.add("NOTES");
        }
        return flags.isEmpty() ? "ok" : String.join(",", flags);
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
