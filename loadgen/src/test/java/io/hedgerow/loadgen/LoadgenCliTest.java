package io.hedgerow.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.loadgen.http.SelfTestResponder;
import io.hedgerow.loadgen.report.PhaseResult;
import io.hedgerow.loadgen.report.RunReader;
import io.hedgerow.loadgen.report.RunResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The whole command, end to end, against the trivial responder (no latency is asserted). */
class LoadgenCliTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int loadgen(String... args) {
        CommandLine cli = new CommandLine(new LoadgenCli());
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private Path onlyFolder(Path results) throws IOException {
        try (Stream<Path> folders = Files.list(results)) {
            List<Path> all = folders.toList();
            assertThat(all).hasSize(1);
            return all.getFirst();
        }
    }

    @Test
    void runsAtARateAndWritesAResultsFolderThatLoadsBack() throws IOException {
        Path queries = Files.writeString(dir.resolve("queries.tsv"),
                "# category<TAB>query\nhigh_term\teuropean\nphrase\t\"human rights\"\nlarge_or\ta OR b OR c\n");
        Path results = dir.resolve("results");
        try (SelfTestResponder responder = new SelfTestResponder(Transport.best())) {
            int code = loadgen("--target", "http://127.0.0.1:" + responder.port(), "--queries", queries.toString(),
                    "--rate", "200", "--duration", "2s", "--warmup", "0s", "--results", results.toString(),
                    "--label", "e2e");
            assertThat(code).as("stderr: %s", err).isZero();
        }

        Path folder = onlyFolder(results);
        assertThat(folder.getFileName().toString()).endsWith("-e2e");
        for (String file : List.of("report.txt", "summary.json", "latency.png", "rate-200.hgrm", "rate-200.hlog")) {
            assertThat(folder.resolve(file)).isNotEmptyFile();
        }
        RunResult run = RunReader.read(folder);
        assertThat(run.label()).isEqualTo("e2e");
        assertThat(run.settings()).containsEntry("duration", "2s").containsKey("queries");
        assertThat(run.settings().get("generator loop")).as("what the loop runs at, raised or why not")
                .matches("real-time \\(SCHED_RR 10.*|normal \\(.+\\)");
        PhaseResult phase = run.phases().getFirst();
        assertThat(phase.name()).isEqualTo("rate-200");
        assertThat(phase.mode()).isEqualTo("open/poisson");
        assertThat(phase.count()).isPositive().isEqualTo(phase.latency().getTotalCount());
        assertThat(phase.errors()).isZero();
        assertThat(phase.sent()).isEqualTo(phase.count());
        assertThat(phase.root().extraLeafRequestsPct()).as("not a Hedgerow root: no sub-request counters").isNull();
        assertThat(phase.notes()).as("a target whose counters cannot be read says so").anyMatch(
                note -> note.startsWith("root counters not read"));
        assertThat(Files.readString(folder.resolve("report.txt"))).contains("rate-200", "open/poisson");
    }

    @Test
    void runsAScenarioAtTheRateAndLengthsGivenOnTheCommandLine() throws IOException {
        Path queries = Files.writeString(dir.resolve("queries.tsv"), "high_term\teuropean\nphrase\t\"human rights\"\n");
        Path scenario = Files.writeString(dir.resolve("scenario.json"), """
                {"name": "policies", "request": {"timeout_ms": 2000},
                 "phases": [
                   {"name": "warmup", "duration": "1h", "rate": 5000, "record": false},
                   {"name": "off", "duration": "1h", "rate": 5000, "request": {"hedge": "off"}},
                   {"name": "backup-10ms", "duration": "1h", "rate": 5000, "request": {"hedge": "hedged", "hedge_after_ms": 10}}]}
                """);
        Path results = dir.resolve("results");
        try (SelfTestResponder responder = new SelfTestResponder(Transport.best())) {
            int code = loadgen("--target", "http://127.0.0.1:" + responder.port(), "--queries", queries.toString(),
                    "--scenario", scenario.toString(), "--rate", "100", "--phase-duration", "1s", "--warmup", "1s",
                    "--results", results.toString());
            assertThat(code).as("stderr: %s", err).isZero();
        }

        RunResult run = RunReader.read(onlyFolder(results));
        assertThat(run.label()).isEqualTo("policies");
        assertThat(run.phases()).extracting(PhaseResult::name).as("the warm-up is not recorded").containsExactly("off", "backup-10ms");
        assertThat(run.phases()).extracting(PhaseResult::targetRate).containsOnly(100.0);
        assertThat(run.phases()).allSatisfy(phase -> {
            assertThat(phase.durationNanos()).isLessThanOrEqualTo(1_000_000_000L);
            assertThat(phase.count()).isPositive();
        });
        assertThat(run.settings()).containsEntry("overrides", "rate 100 req/s, recorded phases 1s, warm-up phases 1s, request cache=false");
    }

    @Test
    void refusesAnUnknownHedgingMode() {
        int code = loadgen("--hedge", "sometimes", "--results", dir.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString().strip()).isEqualTo("error: hedge: 'sometimes' (expected: off, hedged or tied)");
    }

    @Test
    void selfTestWarmsUpThenPassesUnderAGenerousTarget() throws IOException {
        Path results = dir.resolve("results");

        // A warm-up of 2 s runs in two parts (see LoadRun.warmUp); neither is in the results.
        int code = loadgen("selftest", "--rate", "500", "--duration", "1s", "--warmup", "2s", "--max-p999-ms", "1000",
                "--results", results.toString());

        assertThat(code).as("PASS: a p99.9 under 1 s; stderr: %s", err).isZero();
        assertThat(err.toString()).isEmpty();
        RunResult run = RunReader.read(onlyFolder(results));
        assertThat(run.phases()).extracting(PhaseResult::name).containsExactly("selftest");
        assertThat(run.phases().getFirst().count()).isPositive();
    }

    @Test
    void selfTestFailsUnderAnImpossibleTargetAndStillWritesItsResults() throws IOException {
        Path results = dir.resolve("results");

        // No request takes less than a nanosecond: the histogram's lowest value alone is 1 µs.
        int code = loadgen("selftest", "--rate", "500", "--duration", "1s", "--warmup", "0s", "--max-p999-ms", "0.000001",
                "--results", results.toString());

        assertThat(code).as("FAIL, not an error; stderr: %s", err).isEqualTo(1);
        assertThat(err.toString()).isEmpty();
        assertThat(RunReader.read(onlyFolder(results)).phases()).extracting(PhaseResult::name).containsExactly("selftest");
    }

    @Test
    void selfTestRefusesATargetThatIsNotPositive() {
        int code = loadgen("selftest", "--max-p999-ms", "0", "--results", dir.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString().strip()).isEqualTo("error: --max-p999-ms: 0.0 (expected: > 0)");
    }

    @Test
    void refusesAwaitReadyWhereItMeansNothing() {
        assertThat(loadgen("--await-ready", "--find-capacity", "--results", dir.toString())).isEqualTo(1);
        assertThat(err.toString().strip())
                .isEqualTo("error: --await-ready goes with a steady run (--rate or --closed-loop), not with --find-capacity");
    }

    @Test
    void saysWhatIsWrongWithAMissingQueryFile() {
        int code = loadgen("--queries", dir.resolve("nope.tsv").toString(), "--results", dir.toString());

        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).startsWith("error: ").contains("nope.tsv");
    }
}
