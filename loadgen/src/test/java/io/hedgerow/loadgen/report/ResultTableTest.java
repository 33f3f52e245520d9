package io.hedgerow.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void showsEveryNumberOfAPhaseInMilliseconds() {
        String table = ResultTable.render(List.of(TestPhases.knownPhase("steady")));
        List<String> lines = table.lines().toList();

        assertThat(lines.get(0).split("\\s+")).containsExactly("phase", "mode", "target/s", "achieved/s", "count", "errors",
                "dropped", "avg", "stddev", "p50", "p90", "p95", "p99", "p99.9", "max", "tainted%", "extra", "leaf%", "both",
                "ran%", "tainted", "cov");
        assertThat(lines.get(1).split("\\s+")).containsExactly("steady", "open/poisson", "1000", "1000.0", "1000", "3", "2",
                "5.620", "48.10", "2.000", "8.003", "8.003", "40.03", "120.1", "1500", "5.00", "1.50", "0.25", "0.920");
        assertThat(lines.get(2)).startsWith("Latency in ms");
    }

    @Test
    void alignsNumbersRightUnderTheirHeaders() {
        String table = ResultTable.render(List.of(TestPhases.knownPhase("a-long-phase-name"),
                TestPhases.randomPhase("b", 10, 500, 1)));
        List<String> lines = table.lines().toList();

        int p999End = lines.get(0).indexOf("p99.9") + "p99.9".length();
        assertThat(lines.get(1).substring(0, p999End)).endsWith(" 120.1");
        int countEnd = lines.get(0).indexOf("count") + "count".length();
        assertThat(lines.get(1).substring(0, countEnd)).endsWith(" 1000");
        assertThat(lines.get(2).substring(0, countEnd)).endsWith("   10");
        assertThat(lines.get(2)).as("text aligned left").startsWith("b" + " ".repeat(18) + "closed");
    }

    @Test
    void marksWhatIsNotKnownOrNotApplicable() {
        PhaseResult closed = TestPhases.randomPhase("closed-8", 100, 1000, 2);
        String row = ResultTable.render(List.of(closed)).lines().toList().get(1);

        String[] cells = row.split("\\s+");
        assertThat(cells[2]).as("no target rate in closed loop").isEqualTo("-");
        assertThat(cells[cells.length - 3]).as("extra leaf requests unknown").isEqualTo("n/a");
        assertThat(cells[cells.length - 2]).as("no tied pairs").isEqualTo("n/a");
        assertThat(cells[cells.length - 1]).as("nothing tainted").isEqualTo("n/a");
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

        assertThat(cells).containsSequence("0", "n/a", "n/a", "n/a", "n/a", "n/a");
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
