package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.write.ReplicaSet.Replica;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A leaf refuses a rebuild ({@code REBUILD_REFUSED}) and says why in {@code rebuild_refusal}: the root
 * holds the replica back for the term only over a primary ({@code PRIMARY_IN_TERM}); over a fed copy,
 * or for no reason said (an older leaf), for that attempt only, asked again after the backoff. The
 * words of the error play no part. Before, the root matched the error's first words, so a fed copy's
 * refusal in other words, or an older leaf's refusal over a primary, held the replica out for the
 * term, and a refusal over a primary that began with those words was asked again. Leaves written by
 * hand ({@link ScriptedReplicas}); the test drives {@link ReplicaCatchUp} on a manual clock.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RebuildRefusalReasonTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final long TERM = 4;

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(RebuildRefusal.FED_DURING_PULL, "the copy moved on while it pulled", false,
                        "fed_during_pull"),
                Arguments.of(RebuildRefusal.FED_SINCE_DECISION, "the copy moved on since the decision", false,
                        "fed_since_decision"),
                Arguments.of(RebuildRefusal.UNSPECIFIED, "rebuild refused: partition 0 here is the primary of term 4",
                        false, "unspecified"),
                Arguments.of(RebuildRefusal.PRIMARY_IN_TERM, "rebuild refused, fed during the pull: in other words",
                        true, "newer_term"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRefusedRebuildIsHeldBackForTheReasonTheLeafGivesWhateverItsWords(RebuildRefusal reason, String words,
            boolean forTheTerm, String counted) throws Exception {
        try (ScriptedReplicas leaves = new ScriptedReplicas(reason, words)) {
            ReplicaSet replicas = new ReplicaSet(0, leaves.links(), new int[] {0, 1}, new StaleReplicas(1, 2));
            Replica zero = replicas.members().get(0);
            Replica one = replicas.members().get(1);
            replicas.apply(new PartitionState(0, TERM, zero.node, Set.of(zero.node), 7));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            ManualTicker ticker = new ManualTicker().advance(Duration.ofHours(1));
            ReplicaCatchUp catchUps = new ReplicaCatchUp(replicas, WriteSettings.defaults(), new WriteMeters(registry),
                    ReplicaCatchUp.NO_STORE, ticker);

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(leaves.restores).as("the RESTORE sent, and refused").hasValue(1);
            assertThat(replicas.rebuildRefusedInThisTerm(one)).as("held back for the term").isEqualTo(forTheTerm);
            assertThat(registry.get("hedgerow.write.rebuilds.refused").tag("reason", counted).counter().count())
                    .as("counted by the leaf's reason").isEqualTo(1);
            assertThat(registry.get("hedgerow.write.catchups").tag("result", "failed").counter().count())
                    .as("not a failed catch-up").isZero();

            ticker.advance(Duration.ofSeconds(1)); // a first refusal's backoff has passed
            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEmpty();
            assertThat(leaves.restores).as(forTheTerm ? "not asked again in the term" : "asked again after the backoff")
                    .hasValue(forTheTerm ? 1 : 2);
        }
    }
}
