package io.hedgerow.loadgen.report;

import java.util.List;
import java.util.Locale;

/**
 * Phases of several runs as one Markdown table in the shape of Dean's "Backup Requests" tables:
 * one row per run (scenario) and phase (policy), with the average, standard deviation and
 * percentiles of the answers' latency, then goodput and what the tail cost: errors, tainted
 * answers (and how complete they were), extra leaf requests and tied pairs where both copies ran.
 * The root's own p99 and the generator's lag p99 say whether the latency is the server's; a row
 * that is not a clean measurement says why. Ready to paste into the docs.
 */
public final class MarkdownTable {
    private static final String HEADER = "| Scenario | Policy | Avg | StdDev | p50 | p95 | p99 | p99.9 | max | goodput/s "
            + "| errors % | tainted % | tainted coverage | extra leaf % | both ran % | root p99 | lag p99 | check |\n"
            + "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";

    private MarkdownTable() {
    }

    /** A row: the run's label (scenario), the phase's name (policy) and its results. */
    public record Row(String run, String phase, PhaseResult result) {
    }

    /** The table, then a line that says what the numbers are, then the problems of each row. */
    public static String render(List<Row> rows) {
        StringBuilder table = new StringBuilder(HEADER);
        for (Row row : rows) {
            PhaseResult phase = row.result();
            boolean answered = phase.latency().getTotalCount() > 0;
            table.append("| ").append(escape(row.run()))
                    .append(" | ").append(escape(row.phase()))
                    .append(" | ").append(answered ? ResultTable.formatMillis(phase.meanMillis()) : "n/a")
                    .append(" | ").append(answered ? ResultTable.formatMillis(phase.stdDevMillis()) : "n/a")
                    .append(" | ").append(ResultTable.millis(phase, 50))
                    .append(" | ").append(ResultTable.millis(phase, 95))
                    .append(" | ").append(ResultTable.millis(phase, 99))
                    .append(" | ").append(ResultTable.millis(phase, 99.9))
                    .append(" | ").append(answered ? ResultTable.formatMillis(phase.maxMillis()) : "n/a")
                    .append(" | ").append(String.format(Locale.ROOT, "%.1f", phase.goodputPerSecond()))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", phase.errorRate() * 100))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", phase.taintedPct()))
                    .append(" | ").append(ResultTable.coverage(phase.taintedCoverage()))
                    .append(" | ").append(ResultTable.percent(phase.root().extraLeafRequestsPct()))
                    .append(" | ").append(ResultTable.percent(phase.root().tiedBothRanPct()))
                    .append(" | ").append(ResultTable.rootP99(phase))
                    .append(" | ").append(phase.sent() == 0 ? "n/a" : ResultTable.formatMillis(phase.lagMillis(99)))
                    .append(" | ").append(ResultTable.check(phase))
                    .append(" |\n");
        }
        table.append("\nLatency in ms of the answers (complete and tainted), counted from each request's intended start"
                + " (open loop) or its send (closed loop); errors are counted apart; ~: fewer than "
                + PhaseResult.SAMPLES_BEYOND + " answers beyond that percentile (indicative only). goodput: complete answers"
                + " per second. extra leaf %: sub-requests of every kind (canaries, retries, backups, tied twins, re-sent"
                + " fetches) beyond one per partition and one fetch per leaf holding hits, over that least. both ran %: tied"
                + " pairs where both copies executed. root p99: the root's own time per answer, first byte in to last byte"
                + " out. lag p99: how late the generator sent (over " + (int) PhaseResult.LAG_LIMIT_MILLIS + " ms: invalid)."
                + " n/a: not measured or not applicable.\n");
        List<String> problems = new java.util.ArrayList<>();
        for (Row row : rows) {
            for (String problem : row.result().problems()) {
                problems.add("- " + escape(row.run()) + " / " + escape(row.phase()) + ": " + problem);
            }
        }
        if (!problems.isEmpty()) {
            table.append("\nProblems:\n").append(String.join("\n", problems)).append('\n');
        }
        return table.toString();
    }

    private static String escape(String cell) {
        return cell.replace("|", "\\|");
    }
}
