package io.hedgerow.loadgen.report;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loadgen compare A B ...}: loads saved runs and shows every phase of each on one table and
 * one latency chart, written to a new folder under {@code --results}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Compare saved runs: one table and one latency-by-percentile chart of every phase of each.",
                "Writes <results>/<time>-<label>/compare.txt, compare.md (a Markdown table: avg, stddev, percentiles,"
                        + " goodput, errors, tainted, extra leaf requests, root p99, generator lag), spread.md (repeated runs:"
                        + " median [min-max] per configuration, with the refusals' p99 at the generator and the root) and compare.png, and prints the folder.",
                "",
                "Examples:",
                "  ./hedgerow loadgen compare results/*-baseline results/*-hedged",
                "  ./hedgerow loadgen compare --markdown results/*-no-fault results/*-stall",
                "  ./hedgerow loadgen compare --spread results/*-pause results/*-no-fault   (three runs of each)",
                ""})
public final class CompareCommand implements Callable<Integer> {
    static final String TABLE = "compare.txt";
    static final String CHART = "compare.png";
    static final String MARKDOWN = "compare.md";
    static final String SPREAD = "spread.md";
    /** Longer lists of run names would not fit the chart's title. */
    private static final int MAX_TITLE = 90;

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN",
            description = "Results folders of runs (written by ./hedgerow loadgen); usually two or more, one for its"
                    + " Markdown table alone.")
    private List<Path> runs;

    @Option(names = "--results", defaultValue = "results", paramLabel = "DIR",
            description = "Where the comparison's folder goes (default: ${DEFAULT-VALUE}).")
    private Path results;

    @Option(names = "--label", defaultValue = "compare",
            description = "Name of the comparison's folder and chart (default: ${DEFAULT-VALUE}).")
    private String label;

    @Option(names = "--markdown",
            description = "Print the Markdown table (run x phase: avg, stddev, p50 to p99.9, max, goodput, errors, tainted,"
                    + " extra leaf %, both ran %, root p99, lag p99) instead of the text table.")
    private boolean markdown;

    @Option(names = "--spread",
            description = "Print the table of repeated runs instead: phases with the same run label and phase name are one"
                    + " configuration, each figure the median of its runs with their range.")
    private boolean spread;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            List<RunResult> loaded = new ArrayList<>();
            for (Path run : runs) {
                loaded.add(RunReader.read(run));
            }
            List<String> labels = labels(runs, loaded);
            List<ResultTable.Row> rows = new ArrayList<>();
            List<MarkdownTable.Row> markdownRows = new ArrayList<>();
            List<LatencyChart.Curve> curves = new ArrayList<>();
            for (int i = 0; i < loaded.size(); i++) {
                for (PhaseResult phase : loaded.get(i).phases()) {
                    String rowLabel = labels.get(i) + "/" + phase.name();
                    rows.add(new ResultTable.Row(rowLabel, phase));
                    markdownRows.add(new MarkdownTable.Row(labels.get(i), phase.name(), phase));
                    curves.add(new LatencyChart.Curve(rowLabel, phase.latency()));
                }
            }
            String table = ResultTable.renderRows(rows);
            String markdownTable = MarkdownTable.render(markdownRows);
            String spreadTable = SpreadTable.render(loaded);
            out.print(spread ? spreadTable : markdown ? markdownTable : table);
            out.flush();
            Path folder = ResultsFolder.create(results, Instant.now(), ZoneId.systemDefault(), label);
            Files.writeString(folder.resolve(TABLE), describe(labels, loaded) + "\n" + table);
            Files.writeString(folder.resolve(MARKDOWN), markdownTable);
            Files.writeString(folder.resolve(SPREAD), spreadTable);
            String names = String.join(" vs ", labels);
            LatencyChart.write("Latency by percentile: " + (names.length() <= MAX_TITLE ? names : labels.size() + " runs"),
                    curves, folder.resolve(CHART));
            out.println("Comparison: " + folder + " (" + TABLE + ", " + MARKDOWN + ", " + SPREAD + ", " + CHART + ")");
            return 0;
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    /** Each run's label, or its folder's name where two runs share a label (two runs called "run"). */
    static List<String> labels(List<Path> folders, List<RunResult> runs) {
        Map<String, Integer> uses = new HashMap<>();
        runs.forEach(run -> uses.merge(run.label(), 1, Integer::sum));
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            String label = runs.get(i).label();
            Path name = folders.get(i).toAbsolutePath().normalize().getFileName();
            labels.add(uses.get(label) > 1 && name != null ? name.toString() : label);
        }
        return labels;
    }

    private static String describe(List<String> labels, List<RunResult> runs) {
        StringBuilder text = new StringBuilder("Runs compared:\n");
        for (int i = 0; i < runs.size(); i++) {
            RunResult run = runs.get(i);
            text.append("  ").append(labels.get(i)).append(": started ").append(run.startedAt()).append(", target ")
                    .append(run.target()).append('\n');
            run.settings().forEach((key, value) -> text.append("    ").append(key).append(": ").append(value).append('\n'));
        }
        return text.toString();
    }
}
