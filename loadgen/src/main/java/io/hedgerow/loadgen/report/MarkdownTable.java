package io.hedgerow.loadgen.report;

import java.util.List;
import java.util.Locale;

/**
 * Phases of several runs as one Markdown table in the shape of Dean's "Backup Requests" tables:
 * one row per run (scenario) and phase (policy), with the average, standard deviation and
 * percentiles of latency, and what the tail cost: extra leaf requests and tied pairs where both
 * copies ran. Errors and tainted results close each row, since a fast answer that failed or came
 * back incomplete is no win, with how complete the tainted ones were. Ready to paste into the docs.
 */
public final class MarkdownTable {
    private static final String HEADER = "| Scenario | Policy | Avg | StdDev | p50 | p95 | p99 | p99.9 | max | extra leaf % "
            + "| both ran % | errors % | tainted % | tainted coverage |\n"
            + "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";

    private MarkdownTable() {
    }

    /** A row: the run's label (scenario), the phase's name (policy) and its results. */
    public record Row(String run, String phase, PhaseResult result) {
    }

    /** The table, then a line that says what the numbers are. */
    public static String render(List<Row> rows) {
        StringBuilder table = new StringBuilder(HEADER);
        for (Row row : rows) {
            PhaseResult phase = row.result();
            table.append("| ").append(escape(row.run()))
                    .append(" | ").append(escape(row.phase()))
                    .append(" | ").append(phase.count() == 0 ? "n/a" : ResultTable.formatMillis(phase.meanMillis()))
                    .append(" | ").append(phase.count() == 0 ? "n/a" : ResultTable.formatMillis(phase.stdDevMillis()))
                    .append(" | ").append(ResultTable.millis(phase, 50))
                    .append(" | ").append(ResultTable.millis(phase, 95))
                    .append(" | ").append(ResultTable.millis(phase, 99))
                    .append(" | ").append(ResultTable.millis(phase, 99.9))
                    .append(" | ").append(phase.count() == 0 ? "n/a" : ResultTable.formatMillis(phase.maxMillis()))
                    .append(" | ").append(ResultTable.percent(phase.extraLeafRequestsPct()))
                    .append(" | ").append(ResultTable.percent(phase.tiedBothRanPct()))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", phase.errorRate() * 100))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", phase.taintedPct()))
                    .append(" | ").append(ResultTable.coverage(phase.taintedCoverage()))
                    .append(" |\n");
        }
        table.append("\nLatency in ms, counted from each request's intended start (open loop) or its send (closed loop);"
                + " extra leaf % is retries, backups and tied twins over primary sub-requests; both ran % is the share of"
                + " tied pairs where both copies executed; tainted coverage is the mean fraction of documents the tainted"
                + " answers covered; n/a: not measured or not applicable.\n");
        return table.toString();
    }

    private static String escape(String cell) {
        return cell.replace("|", "\\|");
    }
}
