package io.hedgerow.root.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The table {@code hedgerow simulate} prints: one row per run, the swept options first. */
public final class SimTable {
    private SimTable() {
    }

    /** A table of {@code runs}, with a column for each option in {@code swept}. */
    public static String of(List<String> swept, List<SimSummary> runs) {
        List<String> header = new ArrayList<>(swept);
        header.addAll(List.of("searches", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "slow", "extra", "tainted",
                "util", "events/s"));
        List<List<String>> rows = new ArrayList<>();
        rows.add(header);
        for (SimSummary run : runs) {
            List<String> row = new ArrayList<>();
            for (String option : swept) {
                row.add(run.options().get(option));
            }
            row.add(String.format(Locale.ROOT, "%,d", run.searches()));
            row.add(SimSummary.format(run.p50Ms()));
            row.add(SimSummary.format(run.p99Ms()));
            row.add(SimSummary.format(run.p999Ms()));
            row.add(SimSummary.format(run.maxMs()));
            row.add(percent(run.slowFraction()));
            row.add(percent(run.extraRequests()));
            row.add(percent(run.tainted()));
            row.add(percent(run.leafUtilization()));
            row.add(String.format(Locale.ROOT, "%,.0f", run.eventsPerSecond()));
            rows.add(row);
        }
        StringBuilder text = aligned(rows, widths(rows), swept.size());
        List<List<String>> shapeRows = shapeRows(swept, runs);
        if (shapeRows.size() > 1) {
            text.append('\n').append(aligned(shapeRows, widths(shapeRows), swept.size() + 1));
        }
        return text.toString();
    }

    /**
     * Under a structured mix: a row per shape of each run, with its share of the searches and its
     * latency (the header alone when no run has shapes).
     */
    private static List<List<String>> shapeRows(List<String> swept, List<SimSummary> runs) {
        List<String> header = new ArrayList<>(swept);
        header.addAll(List.of("shape", "searches", "share", "p50 ms", "p99 ms", "p99.9 ms", "mean ms"));
        List<List<String>> rows = new ArrayList<>();
        rows.add(header);
        for (SimSummary run : runs) {
            run.shapes().forEach((name, shape) -> {
                List<String> row = new ArrayList<>();
                for (String option : swept) {
                    row.add(run.options().get(option));
                }
                row.add(name);
                row.add(String.format(Locale.ROOT, "%,d", shape.searches()));
                row.add(percent(shape.share()));
                row.add(SimSummary.format(shape.p50Ms()));
                row.add(SimSummary.format(shape.p99Ms()));
                row.add(SimSummary.format(shape.p999Ms()));
                row.add(SimSummary.format(shape.meanMs()));
                rows.add(row);
            });
        }
        return rows;
    }

    private static int[] widths(List<List<String>> rows) {
        int[] widths = new int[rows.getFirst().size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        return widths;
    }

    /** The rows in columns, the first {@code leftColumns} aligned left (names), the others right (numbers). */
    private static StringBuilder aligned(List<List<String>> rows, int[] widths, int leftColumns) {
        StringBuilder text = new StringBuilder();
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                text.append(i == 0 ? "" : "  ");
                text.append(i < leftColumns ? String.format("%-" + widths[i] + "s", cell)
                        : String.format("%" + widths[i] + "s", cell));
            }
            text.append('\n');
        }
        return text;
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.2f%%", fraction * 100);
    }
}
