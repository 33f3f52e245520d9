package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void showsEveryNumberOfAPhaseInMilliseconds() {
        String table = ResultTable.render(List.of(TestPhases.knownPhase("steady")));
        List<String> lines = table.lines().toList();

        assertThat(lines.get(0).split("\\s+")).containsExactly("phase", "mode", "target/s", "achieved/s", "goodput/s",
                "errors", "err%", "dropped", "p50", "p90", "p99", "p99.9", "max", "tainted%", "tainted", "cov", "extra",
                "leaf%", "root", "p99", "lag", "p99", "check");
        // 1000 answers support p90 (100 beyond it) but not p99 or p99.9 (10 and 1 beyond): those are marked.
        assertThat(lines.get(1).split("\\s+")).containsExactly("steady", "open/poisson", "1000", "1003.0", "950.0", "3",
                "0.30", "2", "2.000", "8.003", "~40.03", "~120.1", "1500", "4.99", "0.920", "1.50", "1.000", "0.100", "ok");
        assertThat(lines.get(2)).startsWith("Latency in ms of the answers");
    }

    @Test
    void alignsNumbersRightUnderTheirHeaders() {
        String table = ResultTable.render(List.of(TestPhases.knownPhase("a-long-phase-name"),
                TestPhases.randomPhase("b", 10, 500, 1)));
        List<String> lines = table.lines().toList();

        int p999End = lines.get(0).indexOf("p99.9") + "p99.9".length();
        assertThat(lines.get(1).substring(0, p999End)).endsWith(" ~120.1");
        int errorsEnd = lines.get(0).indexOf("errors") + "errors".length();
        assertThat(lines.get(1).substring(0, errorsEnd)).endsWith("      3");
        assertThat(lines.get(2).substring(0, errorsEnd)).endsWith("      0");
        assertThat(lines.get(2)).as("text aligned left").startsWith("b" + " ".repeat(18) + "closed");
    }

    @Test
    void marksWhatIsNotKnownOrNotApplicable() {
        PhaseResult closed = TestPhases.randomPhase("closed-8", 100, 1000, 2);
        String row = ResultTable.render(List.of(closed)).lines().toList().get(1);

        String[] cells = row.split("\\s+");
        assertThat(cells[2]).as("no target rate in closed loop").isEqualTo("-");
        assertThat(cells[cells.length - 3]).as("root latency unknown").isEqualTo("n/a");
        assertThat(cells[cells.length - 4]).as("extra leaf requests unknown").isEqualTo("n/a");
        assertThat(cells[cells.length - 5]).as("nothing tainted").isEqualTo("n/a");
    }

    @Test
    void flagsAPhaseWithTooManyErrorsOrALateGeneratorAndListsWhy() {
        PhaseResult errors = TestPhases.phase("refused", 100, 0, Latencies.of(TestPhases.samples(2_000, 980),
                Latencies.newHistogram(), TestPhases.samples(50, 20), TestPhases.samples(100, 1000)));
        PhaseResult late = TestPhases.phase("late", 100, 0, Latencies.of(TestPhases.samples(2_000, 1000),
                Latencies.newHistogram(), Latencies.newHistogram(), TestPhases.samples(5_000, 1000)));

        String table = ResultTable.render(List.of(errors, late));

        List<String> lines = table.lines().toList();
        assertThat(lines.get(1)).endsWith("ERRORS");
        assertThat(lines.get(2)).endsWith("INVALID(lag)");
        assertThat(table).contains("refused: errors: 2.00% of requests failed (over 1%)",
                "late: invalid: the generator sent late (lag p99 5.00 ms > 1 ms)");
        assertThat(errors.percentileMillis(99)).as("fast refusals are not in the answers' latency").isEqualTo(2.0);
    }

    @Test
    void labelsRowsOfAComparisonByRunAndPhase() {
        String table = ResultTable.renderRows(List.of(new ResultTable.Row("baseline/steady", TestPhases.knownPhase("steady")),
                new ResultTable.Row("hedged/steady", TestPhases.knownPhase("steady"))));

        assertThat(table.lines().skip(1).limit(2).map(line -> line.split("\\s+")[0]))
                .containsExactly("baseline/steady", "hedged/steady");
    }

    @Test
    void showsAPhaseWithNoAnswersAsNotAvailable() {
        PhaseResult empty = TestPhases.randomPhase("dead", 0, 1000, 3);
        String[] cells = ResultTable.render(List.of(empty)).lines().toList().get(1).split("\\s+");

        assertThat(cells).containsSequence("0", "0.00", "0", "n/a", "n/a", "n/a", "n/a", "n/a");
    }

    @Test
    void formatsMillisecondsToTheMicrosecondThenToFourDigits() {
        assertThat(ResultTable.formatMillis(0.083)).isEqualTo("0.083");
        assertThat(ResultTable.formatMillis(1.2341)).isEqualTo("1.234");
        assertThat(ResultTable.formatMillis(12.346)).isEqualTo("12.35");
        assertThat(ResultTable.formatMillis(123.46)).isEqualTo("123.5");
        assertThat(ResultTable.formatMillis(12345.6)).isEqualTo("12346");
    }
}
