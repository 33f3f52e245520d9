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
        int[] widths = new int[header.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                text.append(i == 0 ? "" : "  ");
                text.append(i < swept.size() ? String.format("%-" + widths[i] + "s", cell)
                        : String.format("%" + widths[i] + "s", cell));
            }
            text.append('\n');
        }
        return text.toString();
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.2f%%", fraction * 100);
    }
}
