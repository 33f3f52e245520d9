package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class PhaseFaultsTest {
    private static final String AT = "2026-11-22T16:51:28.125Z";

    private static FaultEvent event(String fault, Leaves leaf, String action, Outcome outcome, String detail) {
        return new FaultEvent(AT, 1500, fault, leaf, action, outcome, detail);
    }

    @Test
    void writesSnakeCaseJsonAndReadsItBackEqual() throws Exception {
        PhaseFaults faults = new PhaseFaults(List.of(
                event("pause", Leaves.one(1), "pause", Outcome.APPLIED, "SIGSTOP to pid 42 for 150 ms"),
                event("delay", Leaves.ALL, "list-leaves", Outcome.FAILED, "cannot list the leaves of the cluster")),
                List.of("delay all leaves (every attempt failed)"));
        JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

        String json = mapper.writeValueAsString(faults);

        assertThat(json).contains("\"never_applied\"", "\"offset_ms\" : 1500", "\"at\" : \"" + AT + "\"", "\"leaf\" : 1",
                "\"leaf\" : \"all\"", "\"outcome\" : \"APPLIED\"");
        assertThat(json).as("only the fields, no helpers").doesNotContain("clean", "summary", "target", "\"applied\"");
        PhaseFaults back = mapper.readerFor(PhaseFaults.class).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .readValue(json);
        assertThat(back).isEqualTo(faults);
    }

    @Test
    void isCleanWhenNothingFailedAndEveryFaultApplied() {
        PhaseFaults faults = new PhaseFaults(List.of(
                event("pause", Leaves.one(1), "pause", Outcome.APPLIED, ""),
                event("pause", Leaves.one(1), "resume", Outcome.UNDONE, ""),
                event("pause", Leaves.one(1), "pause", Outcome.APPLIED, ""),
                event("pause", Leaves.one(1), "resume", Outcome.UNDONE, "")), List.of());

        assertThat(faults.clean()).isTrue();
        assertThat(List.of(faults.applied(), faults.undone(), faults.failed())).containsExactly(2, 2, 0);
        assertThat(faults.summary()).isEqualTo("pause leaf 1: 2 applied");
        assertThat(PhaseFaults.NONE.clean()).isTrue();
        assertThat(PhaseFaults.NONE.summary()).isEmpty();
    }

    @Test
    void summarizesFailuresFirstThenWhatNeverAppliedThenWhatDid() {
        PhaseFaults faults = new PhaseFaults(List.of(
                event("pause", Leaves.one(1), "pause", Outcome.APPLIED, ""),
                event("kill", Leaves.one(2), "kill", Outcome.FAILED, "no pid file data/run/leaf-2.pid"),
                event("restart", Leaves.one(0), "stop", Outcome.APPLIED, ""),
                event("restart", Leaves.one(0), "restart", Outcome.FAILED, "HTTP 503: busy"),
                event("restart", Leaves.one(0), "restart", Outcome.FAILED, "HTTP 503: busy")),
                List.of("kill leaf 2 (every attempt failed)", "stall leaf 3 (due at 10s, after the phase's end at 5s)"));

        assertThat(faults.clean()).isFalse();
        assertThat(faults.failed()).isEqualTo(3);
        assertThat(faults.summary()).isEqualTo("FAILED: kill leaf 2 (no pid file data/run/leaf-2.pid);"
                + " FAILED 2x: restart leaf 0 (HTTP 503: busy);"
                + " NOT APPLIED: stall leaf 3 (due at 10s, after the phase's end at 5s);"
                + " pause leaf 1: 1 applied; restart leaf 0: 1 applied");
    }

    @Test
    void isNotCleanWhenAFaultNeverApplied() {
        PhaseFaults faults = new PhaseFaults(List.of(), List.of("kill leaf 2 (due at 10s, after the phase's end at 5s)"));

        assertThat(faults.clean()).isFalse();
        assertThat(faults.summary()).isEqualTo("NOT APPLIED: kill leaf 2 (due at 10s, after the phase's end at 5s)");
    }
}
