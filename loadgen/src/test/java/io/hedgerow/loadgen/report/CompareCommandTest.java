package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.LoadgenCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CompareCommandTest {
    @TempDir
    Path results;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int compare(String... args) {
        CommandLine cli = new CommandLine(new LoadgenCli());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 1];
        all[0] = "compare";
        System.arraycopy(args, 0, all, 1, args.length);
        return cli.execute(all);
    }

    @Test
    void drawsEveryPhaseOfEverySavedRunOnOneTableAndChart() throws IOException {
        Path baseline = ReportWriter.write(TestPhases.run("baseline", List.of(TestPhases.knownPhase("steady"),
                TestPhases.randomPhase("pause", 3000, 5000, 1))), results);
        Path hedged = ReportWriter.write(TestPhases.run("hedged", List.of(TestPhases.randomPhase("steady", 3000, 1500, 2))),
                results);
        Path comparisons = results.resolve("comparisons");

        int code = compare(baseline.toString(), hedged.toString(), "--results", comparisons.toString());

        assertThat(code).as("stderr: %s", err).isZero();
        assertThat(out.toString().lines().map(line -> line.split("\\s+")[0]))
                .contains("baseline/steady", "baseline/pause", "hedged/steady");
        assertThat(out.toString().lines().filter(line -> line.startsWith("baseline/steady ")).findFirst().orElseThrow()
                .split("\\s+")).containsExactly("baseline/steady", "open/poisson", "1000", "1003.0", "950.0", "3", "0.30", "2",
                "2.000", "8.003", "~40.03", "~120.1", "1500", "4.99", "0.920", "1.50", "1.000", "0.100", "ok");
        Path folder;
        try (Stream<Path> folders = Files.list(comparisons)) {
            folder = folders.findFirst().orElseThrow();
        }
        assertThat(folder.getFileName().toString()).endsWith("-compare");
        assertThat(out.toString()).contains("Comparison: " + folder);
        assertThat(Files.readString(folder.resolve("compare.txt"))).contains("baseline/pause", "hedged/steady",
                "Runs compared:");
        assertThat(ImageIO.read(folder.resolve("compare.png").toFile()).getWidth()).isEqualTo(LatencyChart.WIDTH);
    }

    @Test
    void printsAMarkdownTableOfScenariosAndPoliciesAndKeepsIt() throws IOException {
        Path noFault = ReportWriter.write(TestPhases.run("no-fault", List.of(TestPhases.knownPhase("off"),
                TestPhases.randomPhase("tied", 0, 800, 3))), results);
        Path stall = ReportWriter.write(TestPhases.run("stall|150ms", List.of(TestPhases.knownPhase("hedged-p95"))), results);
        Path comparisons = results.resolve("comparisons");

        int code = compare("--markdown", noFault.toString(), stall.toString(), "--results", comparisons.toString(),
                "--label", "backup-requests");

        assertThat(code).as("stderr: %s", err).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).isEqualTo("| Scenario | Policy | Avg | StdDev | p50 | p95 | p99 | p99.9 | max | goodput/s "
                + "| errors % | tainted % | tainted coverage | extra leaf % | both ran % | root p99 | lag p99 | check |");
        assertThat(lines.get(1)).startsWith("| --- | --- | ---: |");
        assertThat(lines.get(2)).isEqualTo("| no-fault | off | 5.620 | 48.10 | 2.000 | 8.003 | ~40.03 | ~120.1 | 1500 | 950.0"
                + " | 0.30 | 4.99 | 0.920 | 1.50 | 0.25 | 1.000 | 0.100 | ok |");
        assertThat(lines.get(3)).as("nothing answered, nothing measured").isEqualTo(
                "| no-fault | tied | n/a | n/a | n/a | n/a | n/a | n/a | n/a | 0.0 | 0.00 | 0.00 | n/a | n/a | n/a | n/a | n/a | ok |");
        assertThat(lines.get(4)).as("a pipe in a label does not split the cell").startsWith("| stall\\|150ms | hedged-p95 | 5.620 |");
        Path folder;
        try (Stream<Path> folders = Files.list(comparisons)) {
            folder = folders.findFirst().orElseThrow();
        }
        assertThat(Files.readString(folder.resolve("compare.md"))).startsWith(String.join("\n", lines.subList(0, 5)));
        assertThat(Files.readString(folder.resolve("compare.txt"))).contains("no-fault/off", "extra leaf%");
    }

    @Test
    void showsHowFastRefusalsCameBackAtTheGeneratorAndAtTheRoot() throws IOException {
        Path a = ReportWriter.write(TestPhases.run("overload", List.of(TestPhases.refusingPhase("overloaded"))), results);
        Path b = ReportWriter.write(TestPhases.run("overload", List.of(TestPhases.refusingPhase("overloaded"))), results);
        Path other = ReportWriter.write(TestPhases.run("no-fault", List.of(TestPhases.knownPhase("steady"))), results);

        int code = compare("--spread", a.toString(), b.toString(), other.toString(), "--results",
                results.resolve("comparisons").toString());

        assertThat(code).as("stderr: %s", err).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).contains("| errors % | refused p99 | root refusal p99 | tainted % |");
        assertThat(lines).anyMatch(line -> line.startsWith("| overload / overloaded | 2 | 1,200 |")
                && line.contains("| 40.30 [40.30-40.30] | 0.300 [0.300-0.300] | 0.100 [0.100-0.100] |"));
        assertThat(lines).as("no refusal at the generator; one at the root")
                .anyMatch(line -> line.startsWith("| no-fault / steady |") && line.contains("| n/a | 0.200 |"));
    }

    @Test
    void showsRepeatedRunsOfAConfigurationAsTheirMedianAndRange() throws IOException {
        Path a = ReportWriter.write(TestPhases.run("pause", List.of(TestPhases.randomPhase("paused", 3000, 1000, 1))), results);
        Path b = ReportWriter.write(TestPhases.run("pause", List.of(TestPhases.randomPhase("paused", 3000, 2000, 2))), results);
        Path c = ReportWriter.write(TestPhases.run("pause", List.of(TestPhases.randomPhase("paused", 3000, 4000, 3))), results);
        Path other = ReportWriter.write(TestPhases.run("no-fault", List.of(TestPhases.knownPhase("steady"))), results);

        int code = compare("--spread", a.toString(), other.toString(), b.toString(), c.toString(), "--results",
                results.resolve("comparisons").toString());

        assertThat(code).as("stderr: %s", err).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).startsWith("| Configuration | runs | answers | p50 | p99 | p99.9 |");
        String pause = lines.stream().filter(line -> line.startsWith("| pause / paused |")).findFirst().orElseThrow();
        String[] cells = pause.split(" \\| ");
        assertThat(cells[1]).isEqualTo("3");
        assertThat(cells[2]).isEqualTo("9,000");
        assertThat(cells[3]).as("p50: the median run's, then the range").matches("\\d+\\.\\d+ \\[\\d+\\.\\d+-\\d+\\.\\d+]");
        assertThat(lines).anyMatch(line -> line.startsWith("| no-fault / steady | 1 | 1,000 | 2.000 | ~40.03 | ~120.1 |"));
        assertThat(pause).as("9,000 answers support p99 (90 beyond) but not p99.9 (9)").contains(" | ~");
    }

    @Test
    void computesTheMedianAndRangeOfAnyNumberOfRuns() {
        assertThat(SpreadTable.spreadOf(3, 1, 2)).isEqualTo("2.000 [1.000-3.000]");
        assertThat(SpreadTable.spreadOf(4, 1, 2, 3)).isEqualTo("2.500 [1.000-4.000]");
        assertThat(SpreadTable.spreadOf(12.5)).isEqualTo("12.50");
        assertThat(SpreadTable.spread(java.util.Arrays.asList(null, null))).isEqualTo("n/a");
    }

    @Test
    void namesRunsThatShareALabelByTheirFolders() throws IOException {
        Path first = ReportWriter.write(TestPhases.run("run", List.of(TestPhases.knownPhase("steady"))), results);
        Path second = ReportWriter.write(TestPhases.run("run", List.of(TestPhases.knownPhase("steady"))), results);

        int code = compare(first.toString(), second.toString(), "--results", results.toString());

        assertThat(code).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains(first.getFileName() + "/steady", second.getFileName() + "/steady");
    }

    @Test
    void saysClearlyWhenAFolderIsNotARun() throws IOException {
        Path run = ReportWriter.write(TestPhases.run("run", List.of(TestPhases.knownPhase("steady"))), results);
        Path notARun = Files.createDirectory(results.resolve("notes"));

        int code = compare(run.toString(), notARun.toString(), "--results", results.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString().strip()).isEqualTo("error: " + notARun + " is not a load run: it has no summary.json"
                + " (expected a results folder of ./hedgerow loadgen, e.g. results/20260101-120000-run)");
        try (Stream<Path> folders = Files.list(results)) {
            assertThat(folders).as("no comparison folder for a failed comparison").hasSize(2);
        }
    }

    @Test
    void needsAtLeastOneRun() {
        int code = compare("--markdown");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("RUN");
    }
}
