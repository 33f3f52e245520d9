package io.hedgerow.loadgen.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Repeated runs of the same configurations as one Markdown table: phases that share a run label
 * and a phase name are one configuration, and each of its figures is shown as the median of the
 * repetitions with their range, {@code median [min-max]}, so a difference between two rows can be
 * weighed against the run-to-run spread. A configuration with any problem in any repetition says
 * so in its last column.
 */
public final class SpreadTable {
    private static final List<Column> COLUMNS = List.of(
            new Column("p50", phase -> percentile(phase, 50), 50),
            new Column("p99", phase -> percentile(phase, 99), 99),
            new Column("p99.9", phase -> percentile(phase, 99.9), 99.9),
            new Column("max", phase -> phase.latency().getTotalCount() == 0 ? null : phase.maxMillis(), 0),
            new Column("goodput/s", PhaseResult::goodputPerSecond, 0),
            new Column("errors %", phase -> phase.errorRate() * 100, 0),
            new Column("refused p99", phase -> phase.refusedMillis(99), 0),
            new Column("root refusal p99", SpreadTable::rootRefusalP99, 0),
            new Column("tainted %", PhaseResult::taintedPct, 0),
            new Column("extra leaf %", phase -> phase.root().extraLeafRequestsPct(), 0),
            new Column("lag p99", phase -> phase.sent() == 0 ? null : phase.lagMillis(99), 0));

    private SpreadTable() {
    }

    /** A column; {@code percentile} > 0 for a latency percentile, which a run may be too short to support. */
    private record Column(String name, Function<PhaseResult, Double> value, double percentile) {
        boolean supportedBy(List<PhaseResult> phases) {
            return percentile == 0 || phases.stream().allMatch(phase -> phase.supports(percentile));
        }
    }

    /** The root's own time to refuse (its {@code refused} histogram), p99 in ms; null when it refused nothing or did not say. */
    private static Double rootRefusalP99(PhaseResult phase) {
        RootView.Latency root = phase.root().latency();
        return root == null || root.refused().getTotalCount() == 0 ? null : root.refused().getValueAtPercentile(99) / 1000.0;
    }

    private static Double percentile(PhaseResult phase, double percentile) {
        return phase.latency().getTotalCount() == 0 ? null : phase.percentileMillis(percentile);
    }

    /** The table of every configuration (run label / phase name) of the runs, in order of first appearance. */
    public static String render(List<RunResult> runs) {
        Map<String, List<PhaseResult>> configurations = new LinkedHashMap<>();
        for (RunResult run : runs) {
            for (PhaseResult phase : run.phases()) {
                configurations.computeIfAbsent(run.label() + " / " + phase.name(), k -> new ArrayList<>()).add(phase);
            }
        }
        StringBuilder table = new StringBuilder("| Configuration | runs | answers |");
        StringBuilder rule = new StringBuilder("| --- | ---: | ---: |");
        for (Column column : COLUMNS) {
            table.append(' ').append(column.name()).append(" |");
            rule.append(" ---: |");
        }
        table.append(" check |\n").append(rule).append(" --- |\n");
        for (Map.Entry<String, List<PhaseResult>> configuration : configurations.entrySet()) {
            List<PhaseResult> phases = configuration.getValue();
            long answers = phases.stream().mapToLong(phase -> phase.latency().getTotalCount()).sum();
            table.append("| ").append(configuration.getKey().replace("|", "\\|")).append(" | ").append(phases.size())
                    .append(" | ").append(String.format(Locale.ROOT, "%,d", answers)).append(" |");
            for (Column column : COLUMNS) {
                String cell = spread(phases.stream().map(column.value()).toList());
                table.append(' ').append(column.supportedBy(phases) || cell.equals("n/a") ? cell : "~" + cell).append(" |");
            }
            List<String> flags = phases.stream().flatMap(phase -> java.util.Arrays.stream(ResultTable.check(phase).split(",")))
                    .filter(flag -> !flag.equals("ok")).distinct().toList();
            table.append(' ').append(flags.isEmpty() ? "ok" : String.join(",", flags)).append(" |\n");
        }
        table.append("\nEach figure: the median of the runs [lowest-highest]; latency in ms of the answers (complete and"
                + " tainted) from each request's intended start; ~: some run had fewer than " + PhaseResult.SAMPLES_BEYOND
                + " answers beyond that percentile; answers: all runs together. errors %: refusals included; refused p99:"
                + " how fast refusals (503 overloaded or shutting_down) came back, from the intended start; root refusal"
                + " p99: the root's own time to refuse (n/a: none refused). check: ok when every run was a clean"
                + " measurement (see each run's problems otherwise).\n");
        return table.toString();
    }

    /** {@code median [min-max]}, or the value alone for one run, or n/a. */
    static String spread(List<Double> values) {
        double[] known = values.stream().filter(v -> v != null && !v.isNaN()).mapToDouble(Double::doubleValue).sorted().toArray();
        if (known.length == 0) {
            return "n/a";
        }
        String median = format(median(known));
        return known.length == 1 ? median : median + " [" + format(known[0]) + "-" + format(known[known.length - 1]) + "]";
    }

    private static double median(double[] sorted) {
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static String format(double value) {
        return ResultTable.formatMillis(value);
    }

    /** For tests: the spread of plain numbers. */
    static String spreadOf(double... values) {
        return spread(Arrays.stream(values).boxed().toList());
    }
}
