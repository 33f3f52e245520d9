package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.loadgen.scenario.FaultEvent;
import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import io.hedgerow.loadgen.scenario.Leaves;
import io.hedgerow.loadgen.scenario.PhaseFaults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {
    @TempDir
    Path results;

    private final RunResult run = TestPhases.run("leaf pause", List.of(
            TestPhases.knownPhase("steady"),
            TestPhases.randomPhase("closed-8", 5000, 800, 7),
            TestPhases.randomPhase("dead", 0, 800, 8)));

    @Test
    void writesEveryFileIntoAFolderNamedAfterTheStartAndLabel() throws IOException {
        Path folder = ReportWriter.write(run, results, ZoneOffset.UTC);

        assertThat(folder).isEqualTo(results.resolve("20261122-143005-leaf_pause"));
        try (Stream<Path> files = Files.list(folder)) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder(
                    "report.txt", "summary.json", "latency.png",
                    "steady.hgrm", "steady.hlog", "closed-8.hgrm", "closed-8.hlog", "dead.hgrm", "dead.hlog");
        }
        String report = Files.readString(folder.resolve("report.txt"));
        assertThat(report).contains("Load run:  leaf pause", "seed: 42", ResultTable.render(run.phases()),
                "steady: 2 x HTTP 503", "steady: 1 x connection closed by the server");
    }

    @Test
    void summaryHasTheNumbersOfTheTableAndMorePercentiles() throws IOException {
        Path folder = ReportWriter.write(run, results, ZoneOffset.UTC);
        JsonNode summary = new ObjectMapper().readTree(folder.resolve("summary.json").toFile());

        assertThat(summary.path("label").asText()).isEqualTo("leaf pause");
        assertThat(summary.path("started_at").asText()).isEqualTo("2026-11-22T14:30:05.123Z");
        assertThat(summary.path("settings").path("seed").asText()).isEqualTo("42");
        JsonNode steady = summary.path("phases").path(0);
        assertThat(steady.path("name").asText()).isEqualTo("steady");
        assertThat(steady.path("sent").asLong()).isEqualTo(1003);
        assertThat(steady.path("count").asLong()).isEqualTo(1003);
        assertThat(steady.path("complete").asLong()).isEqualTo(950);
        assertThat(steady.path("tainted").asLong()).isEqualTo(50);
        assertThat(steady.path("errors").asLong()).isEqualTo(3);
        assertThat(steady.path("dropped").asLong()).isEqualTo(2);
        assertThat(steady.path("goodput_per_s").asDouble()).isEqualTo(950.0);
        assertThat(steady.path("error_rate").asDouble()).isCloseTo(3 / 1003.0, within(1e-12));
        assertThat(steady.path("error_flagged").asBoolean()).isFalse();
        assertThat(steady.path("valid").asBoolean()).isTrue();
        assertThat(steady.path("tainted_coverage").asDouble()).isEqualTo(0.92);
        assertThat(steady.path("root").path("extra_leaf_requests_pct").asDouble()).isEqualTo(1.5);
        assertThat(steady.path("root").path("tied_both_ran_pct").asDouble()).isEqualTo(0.25);
        assertThat(steady.path("root").path("searches").asLong()).isEqualTo(1003);
        assertThat(steady.path("root").path("latency_ms").path("ok").path("p99").asDouble()).isEqualTo(1.0);
        assertThat(steady.path("root").path("cpu_cores").path("machine").asDouble()).isEqualTo(1.5);
        assertThat(steady.path("root").path("cpu_cores").path("others").asDouble()).as("less generator and root")
                .isEqualTo(0.75);
        assertThat(steady.path("error_reasons").path("HTTP 503").asLong()).isEqualTo(2);
        JsonNode answered = steady.path("latency_ms").path("answered");
        assertThat(answered.path("count").asLong()).isEqualTo(1000);
        assertThat(answered.path("p50").asDouble()).isEqualTo(2.0);
        assertThat(answered.path("p90").asDouble()).isEqualTo(8.003);
        assertThat(answered.path("p95").asDouble()).isEqualTo(8.003);
        assertThat(answered.path("p99").asDouble()).isEqualTo(40.031);
        assertThat(answered.path("p99_9").asDouble()).isEqualTo(120.063);
        assertThat(answered.path("p99_99").asDouble()).isEqualTo(1500.159);
        assertThat(answered.path("max").asDouble()).isEqualTo(1500.159);
        assertThat(answered.path("mean").asDouble()).isEqualTo(5.620376);
        assertThat(answered.path("stddev").asDouble()).isCloseTo(48.1012597, within(1e-6));
        assertThat(answered.path("supports").toString()).isEqualTo("[\"p50\",\"p90\",\"p95\"]");
        assertThat(steady.path("latency_ms").path("ok").path("count").asLong()).isEqualTo(950);
        assertThat(steady.path("latency_ms").path("tainted").path("p50").asDouble()).isEqualTo(2.0);
        assertThat(steady.path("latency_ms").path("error").path("p50").asDouble()).isEqualTo(1.0);
        assertThat(steady.path("generator_lag").path("p99").asDouble()).isEqualTo(0.1);
        JsonNode closed = summary.path("phases").path(1);
        assertThat(closed.path("root").path("extra_leaf_requests_pct").isNull()).isTrue();
        assertThat(closed.path("root").path("tied_both_ran_pct").isNull()).as("written as null: no tied pairs").isTrue();
        assertThat(closed.path("root").path("latency_ms").isNull()).as("written as null: root not read").isTrue();
        assertThat(closed.path("tainted_coverage").isNull()).as("written as null: nothing tainted").isTrue();
        assertThat(summary.path("phases").path(2).path("latency_ms").path("answered").path("p50").isNull()).isTrue();
    }

    @Test
    void recordsWhatEachFaultDidAndMarksAPhaseWhoseFaultDidNotApply() throws IOException {
        PhaseFaults paused = new PhaseFaults(List.of(
                new FaultEvent("2026-11-22T14:30:06Z", 0, "pause", Leaves.one(1), "pause", Outcome.APPLIED, "pid 4242"),
                new FaultEvent("2026-11-22T14:30:06.150Z", 150, "pause", Leaves.one(1), "resume", Outcome.UNDONE, "pid 4242")),
                List.of());
        PhaseFaults failed = new PhaseFaults(List.of(new FaultEvent("2026-11-22T14:30:16Z", 10_000, "kill", Leaves.one(2),
                "kill", Outcome.FAILED, "no pid file data/run/leaf-2.pid")), List.of("kill leaf 2 (every attempt failed)"));
        RunResult faulty = TestPhases.run("faults", List.of(TestPhases.knownPhase("paused").withFaults(paused),
                TestPhases.knownPhase("killed").withFaults(failed)));

        Path folder = ReportWriter.write(faulty, results, ZoneOffset.UTC);

        JsonNode phases = new ObjectMapper().readTree(folder.resolve("summary.json").toFile()).path("phases");
        assertThat(phases.path(0).path("faults").size()).isEqualTo(2);
        assertThat(phases.path(0).path("faults").path(0).path("action").asText()).isEqualTo("pause");
        assertThat(phases.path(0).path("faults").path(0).path("at").asText()).isEqualTo("2026-11-22T14:30:06Z");
        assertThat(phases.path(0).path("faults_clean").asBoolean()).isTrue();
        assertThat(phases.path(0).path("valid").asBoolean()).isTrue();
        assertThat(phases.path(1).path("faults_clean").asBoolean()).isFalse();
        assertThat(phases.path(1).path("valid").asBoolean()).isFalse();
        assertThat(phases.path(1).path("faults_summary").asText()).startsWith("FAILED: kill leaf 2");
        assertThat(phases.path(1).path("problems").toString()).contains("faults did not all apply");
        String table = ResultTable.render(faulty.phases());
        assertThat(table.lines().toList().get(1)).endsWith("ok");
        assertThat(table.lines().toList().get(2)).endsWith("FAULT-FAILED");
        assertThat(Files.readString(folder.resolve("report.txt"))).contains("Faults (", "paused: pause leaf 1: 1 applied",
                "killed: FAILED: kill leaf 2");
        RunResult read = RunReader.read(folder);
        assertThat(read).isEqualTo(faulty);
        assertThat(MarkdownTable.render(List.of(new MarkdownTable.Row("faults", "killed", read.phases().get(1)))))
                .contains("| FAULT-FAILED |", "faults did not all apply");
    }

    @Test
    void percentileFilesAreInMilliseconds() throws IOException {
        Path folder = ReportWriter.write(run, results, ZoneOffset.UTC);
        String hgrm = Files.readString(folder.resolve("steady.hgrm"));

        assertThat(hgrm).contains("Value     Percentile TotalCount 1/(1-Percentile)");
        assertThat(hgrm).containsPattern("\\n\\s+2\\.000 0\\.\\d+\\s+\\d+");
        assertThat(hgrm).contains("#[Max     =     1500.159, Total count    =         1000]");
    }

    @Test
    void readsBackWhatItWrote() throws IOException {
        Path folder = ReportWriter.write(run, results, ZoneOffset.UTC);

        RunResult read = RunReader.read(folder);

        assertThat(read).isEqualTo(run);
        PhaseResult steady = read.phases().getFirst();
        assertThat(steady.latency().getTotalCount()).isEqualTo(1000);
        assertThat(steady.percentileMillis(99.9)).isEqualTo(120.063);
        assertThat(steady.errorReasons()).containsEntry("HTTP 503", 2L);
        assertThat(read.phases().get(1).percentileMillis(99)).isEqualTo(run.phases().get(1).percentileMillis(99));
        assertThat(read.phases().get(2).latency().getTotalCount()).isZero();
    }

    @Test
    void reportsRefusalsApartFromOtherErrorsEverywhere() throws IOException {
        RunResult overload = TestPhases.run("overload", List.of(TestPhases.refusingPhase("overloaded")));

        Path folder = ReportWriter.write(overload, results, ZoneOffset.UTC);

        JsonNode phase = new ObjectMapper().readTree(folder.resolve("summary.json").toFile()).path("phases").path(0);
        assertThat(phase.path("errors").asLong()).as("every failure, as before the split").isEqualTo(405);
        assertThat(phase.path("refused").asLong()).isEqualTo(400);
        assertThat(phase.path("other_errors").asLong()).isEqualTo(5);
        assertThat(phase.path("error_rate").asDouble()).isCloseTo(405 / 1005.0, within(1e-12));
        JsonNode latency = phase.path("latency_ms");
        assertThat(latency.path("error").path("count").asLong()).isEqualTo(405);
        assertThat(latency.path("refused").path("count").asLong()).isEqualTo(400);
        assertThat(latency.path("refused").path("p99").asDouble()).isEqualTo(0.3);
        assertThat(latency.path("refused").path("p99_9").asDouble()).isEqualTo(0.3);
        assertThat(latency.path("refused").path("max").asDouble()).isEqualTo(0.3);
        assertThat(latency.path("other_error").path("p50").asDouble()).isEqualTo(1000.447);
        assertThat(phase.path("root").path("refused_latency_ms").path("p99").asDouble()).isEqualTo(0.1);
        assertThat(phase.path("root").path("latency_ms").path("refused").path("count").asLong()).isEqualTo(400);
        assertThat(HistogramFiles.readLog(folder.resolve("overloaded.hlog"))).containsKeys("errors", "refused",
                "root-refused");
        assertThat(Files.readString(folder.resolve("report.txt"))).contains("overloaded: refusals: 400 (39.80% of"
                + " requests), answered in p50 0.300 / p99 ~0.300 / p99.9 ~0.300 / max 0.300 ms; root refusal p99 ~0.100 ms"
                + " (400 refused at the root)");
        assertThat(RunReader.read(folder)).isEqualTo(overload);
    }

    @Test
    void readsALogWrittenBeforeRefusalsWereToldApartAsNoneRefused() throws IOException {
        RunResult overload = TestPhases.run("overload", List.of(TestPhases.refusingPhase("overloaded")));
        Path folder = ReportWriter.write(overload, results, ZoneOffset.UTC);
        Path log = folder.resolve("overloaded.hlog");
        java.util.Map<String, org.HdrHistogram.Histogram> tagged = HistogramFiles.readLog(log);
        tagged.remove("refused");
        HistogramFiles.writeLog(tagged, 0, 1, "an older generator's log", log);

        PhaseResult read = RunReader.read(folder).phases().getFirst();

        assertThat(read.refused()).isZero();
        assertThat(read.otherErrors()).isEqualTo(405);
        assertThat(read.errors()).isEqualTo(405);
        assertThat(read.refusedMillis(99)).isNull();
    }

    @Test
    void neverReusesAFolderAndKeepsPhaseFilesApart() throws IOException {
        RunResult twins = TestPhases.run("run", List.of(TestPhases.knownPhase("warm up/1"), TestPhases.knownPhase("warm up/1")));

        Path first = ReportWriter.write(twins, results, ZoneOffset.UTC);
        Path second = ReportWriter.write(twins, results, ZoneOffset.UTC);

        assertThat(second).isNotEqualTo(first).hasFileName(first.getFileName() + "-2");
        assertThat(second.resolve("warm_up_1.hlog")).isRegularFile();
        assertThat(second.resolve("warm_up_1-2.hlog")).isRegularFile();
        assertThat(RunReader.read(second)).isEqualTo(twins);
    }

    @Test
    void refusesAFolderThatIsNotARun() throws IOException {
        Path notARun = Files.createDirectory(results.resolve("photos"));

        assertThatThrownBy(() -> RunReader.read(notARun)).isInstanceOf(IOException.class)
                .hasMessage(notARun + " is not a load run: it has no summary.json"
                        + " (expected a results folder of ./hedgerow loadgen, e.g. results/20260101-120000-run)");
        assertThatThrownBy(() -> RunReader.read(results.resolve("missing"))).hasMessageContaining("no such folder");
        Files.writeString(notARun.resolve("summary.json"), "{\"format\": \"something-else\", \"label\": \"x\","
                + " \"started_at\": \"2026-01-01T00:00:00Z\", \"phases\": []}");
        assertThatThrownBy(() -> RunReader.read(notARun)).hasMessageContaining("format 'something-else'");
        Files.writeString(notARun.resolve("summary.json"), "{\"format\": \"hedgerow-loadgen-run/1\", \"label\": \"x\","
                + " \"started_at\": \"2026-01-01T00:00:00Z\", \"phases\": []}");
        assertThatThrownBy(() -> RunReader.read(notARun)).hasMessageContaining("written by an older load generator");
    }

    @Test
    void saysWhichHistogramIsMissing() throws IOException {
        Path folder = ReportWriter.write(run, results, ZoneOffset.UTC);
        Files.delete(folder.resolve("closed-8.hlog"));

        assertThatThrownBy(() -> RunReader.read(folder)).isInstanceOf(IOException.class)
                .hasMessageContaining("closed-8.hlog: missing");
    }
}
