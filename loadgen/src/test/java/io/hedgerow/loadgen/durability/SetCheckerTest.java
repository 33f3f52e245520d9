package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The checker's verdicts on histories written by hand: it must be able to fail. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SetCheckerTest {
    private final List<Op> ops = new ArrayList<>();
    private long now;

    private void add(int process, String id, Type outcome) {
        ops.add(Op.invoke(process, Kind.ADD, id, now++));
        ops.add(Op.complete(process, outcome, Kind.ADD, id, now++, outcome.name()));
    }

    private void delete(int process, String id, Type outcome) {
        ops.add(Op.invoke(process, Kind.DELETE, id, now++));
        ops.add(Op.complete(process, outcome, Kind.DELETE, id, now++, outcome.name()));
    }

    private SetChecker.Verdict check(Map<String, Presence> reads) {
        return SetChecker.check(History.of(ops), reads, TermLog.none());
    }

    @Test
    void anAcknowledgedAddThatCannotBeReadIsLost() {
        add(0, "a", Type.OK);
        add(1, "b", Type.OK);

        SetChecker.Verdict verdict = check(Map.of("a", Presence.PRESENT, "b", Presence.ABSENT));

        assertThat(verdict.lost()).containsExactly("b");
        assertThat(verdict.valid()).isFalse();
        assertThat(verdict.finalLine()).isEqualTo("acknowledged 2, lost 1, resurrected 0, split terms 0 (no term log: checked nothing)");
    }

    @Test
    void anAcknowledgedDeleteWhoseDocumentIsBackIsResurrected() {
        add(0, "a", Type.OK);
        delete(1, "a", Type.OK);
        add(0, "b", Type.OK);
        delete(1, "b", Type.OK);

        SetChecker.Verdict verdict = check(Map.of("a", Presence.PRESENT, "b", Presence.ABSENT));

        assertThat(verdict.resurrected()).containsExactly("a");
        assertThat(verdict.lost()).isEmpty();
        assertThat(verdict.valid()).isFalse();
        assertThat(verdict.finalLine()).startsWith("acknowledged 4, lost 0, resurrected 1, ");
    }

    @Test
    void indeterminateOperationsMayGoEitherWay() {
        add(0, "info-add-present", Type.INFO);
        add(0, "info-add-absent", Type.INFO);
        add(1, "acked", Type.OK);
        delete(1, "acked", Type.INFO);
        add(1, "acked-2", Type.OK);
        delete(1, "acked-2", Type.INFO);
        ops.add(Op.invoke(2, Kind.ADD, "never-answered", now++)); // the client stopped mid-call

        SetChecker.Verdict verdict = check(Map.of("info-add-present", Presence.PRESENT, "info-add-absent", Presence.ABSENT,
                "acked", Presence.PRESENT, "acked-2", Presence.ABSENT, "never-answered", Presence.PRESENT));

        assertThat(verdict.valid()).isTrue();
        assertThat(verdict.lost()).isEmpty();
        assertThat(verdict.resurrected()).isEmpty();
        assertThat(verdict.recovered()).as("indeterminate adds found").isEqualTo(2);
        assertThat(verdict.info()).isEqualTo(4);
        assertThat(verdict.unfinished()).isEqualTo(1);
        assertThat(verdict.acknowledged()).isEqualTo(2);
    }

    @Test
    void aRefusedDeleteLeavesTheDocumentRequired() {
        add(0, "a", Type.OK);
        delete(0, "a", Type.FAIL);

        assertThat(check(Map.of("a", Presence.ABSENT)).lost()).containsExactly("a");
        assertThat(check(Map.of("a", Presence.PRESENT)).valid()).isTrue();
    }

    @Test
    void aDocumentThatCannotBeReadBackMakesTheRunInvalidWithoutCountingItLost() {
        add(0, "a", Type.OK);
        add(0, "b", Type.OK);

        SetChecker.Verdict verdict = check(Map.of("a", Presence.UNREADABLE)); // b not read at all

        assertThat(verdict.unreadable()).containsExactly("a", "b");
        assertThat(verdict.lost()).isEmpty();
        assertThat(verdict.valid()).isFalse();
    }

    @Test
    void aRefusedAddThatTookEffectIsReportedAsUnexpected() {
        add(0, "a", Type.FAIL);

        SetChecker.Verdict verdict = check(Map.of("a", Presence.PRESENT));

        assertThat(verdict.unexpected()).containsExactly("a");
        assertThat(verdict.acknowledged()).isZero();
    }

    @Test
    void interleavedClientsAreMatchedByProcess() {
        ops.add(Op.invoke(0, Kind.ADD, "a", 1));
        ops.add(Op.invoke(1, Kind.ADD, "b", 2));
        ops.add(Op.nemesis(Kind.FAULT_START, "leaf", 3, "kill primary of partition 1: leaf 0 (pid 1)"));
        ops.add(Op.complete(1, Type.OK, Kind.ADD, "b", 4, "HTTP 201"));
        ops.add(Op.complete(0, Type.INFO, Kind.ADD, "a", 5, "HttpTimeoutException"));

        SetChecker.Verdict verdict = SetChecker.check(History.of(ops), Map.of("a", Presence.ABSENT, "b", Presence.ABSENT),
                TermLog.none());

        assertThat(verdict.lost()).containsExactly("b");
        assertThat(SetChecker.idsToRead(History.of(ops))).containsExactly("a", "b");
    }

    @Test
    void aSplitTermFailsTheRunEvenWithNothingLost() {
        add(0, "a", Type.OK);
        TermLog terms = TermLog.check(List.of("leaf-0.log\t2026-11-28T06:00:00Z 3 7 leaf-0",
                "leaf-1.log\t2026-11-28T06:00:01Z 3 7 leaf-1"));

        SetChecker.Verdict verdict = SetChecker.check(History.of(ops), Map.of("a", Presence.PRESENT), terms);

        assertThat(verdict.valid()).isFalse();
        assertThat(verdict.finalLine()).isEqualTo("acknowledged 1, lost 0, resurrected 0, split terms 1");
    }
}
