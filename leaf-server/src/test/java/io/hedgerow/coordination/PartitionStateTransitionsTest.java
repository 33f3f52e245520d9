package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The write path's state changes without ZooKeeper. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PartitionStateTransitionsTest {
    private static final NodeId A = NodeId.of("leaf-a");
    private static final NodeId B = NodeId.of("leaf-b");
    private static final NodeId C = NodeId.of("leaf-c");
    private static final NodeId OUTSIDER = NodeId.of("leaf-x");

    /** Primary A in term 4 with B and C in sync, read at version 7. */
    private static final PartitionState STATE = new PartitionState(2, 4, A, Set.of(A, B, C), 7);

    @Test
    void promotesAnInSyncReplicaInTheNextTermAndDropsTheOldPrimaryFromTheInSyncSet() {
        PartitionState next = next(PartitionStateTransitions.promote(STATE, B));

        assertThat(next.primary()).isEqualTo(B);
        assertThat(next.primaryTerm()).isEqualTo(5);
        assertThat(next.inSync()).containsExactly(B, C);
        assertThat(next.version()).as("the version the compare-and-set expects").isEqualTo(7);
    }

    @Test
    void aPromotionDecidedInAnOlderTermAdoptsTheStoredStateInsteadOfBumpingItAgain() {
        PartitionState promoted = next(PartitionStateTransitions.promoteInTerm(STATE, 4, B));
        assertThat(promoted.primary()).isEqualTo(B);
        assertThat(promoted.primaryTerm()).isEqualTo(5);

        assertThat(PartitionStateTransitions.promoteInTerm(promoted, 4, C))
                .as("another root promoted first: term 5 is kept").isInstanceOf(Transition.Same.class);
        assertThat(PartitionStateTransitions.promoteInTerm(STATE, 4, OUTSIDER)).isInstanceOf(Transition.Refused.class);
    }

    @Test
    void refusesToPromoteANodeOutsideTheInSyncSet() {
        Transition transition = PartitionStateTransitions.promote(STATE, OUTSIDER);

        assertThat(transition).isInstanceOfSatisfying(Transition.Refused.class, refused ->
                assertThat(refused.reason()).isEqualTo("partition 2: cannot promote leaf-x (expected: a node of the"
                        + " in-sync set [leaf-a, leaf-b, leaf-c])"));
    }

    @Test
    void promotingTheCurrentPrimaryAgainOnlyBumpsTheTerm() {
        PartitionState next = next(PartitionStateTransitions.promote(STATE, A));

        assertThat(next.primary()).isEqualTo(A);
        assertThat(next.primaryTerm()).isEqualTo(5);
        assertThat(next.inSync()).isEqualTo(STATE.inSync());
    }

    @Test
    void everyPromotionIncreasesTheTerm() {
        PartitionState state = PartitionState.initial(0, A, List.of(B, C));
        long previousTerm = state.primaryTerm();
        for (NodeId candidate : List.of(B, C, C, A, B)) {
            if (!state.isInSync(candidate)) {
                state = next(PartitionStateTransitions.addToInSync(state, candidate, state.primaryTerm()));
            }
            state = next(PartitionStateTransitions.promote(state, candidate));
            assertThat(state.primary()).isEqualTo(candidate);
            assertThat(state.primaryTerm()).isGreaterThan(previousTerm);
            previousTerm = state.primaryTerm();
        }
        assertThat(previousTerm).isEqualTo(6);
    }

    @Test
    void theCurrentPrimaryRemovesAReplicaFromTheInSyncSet() {
        PartitionState next = next(PartitionStateTransitions.removeFromInSync(STATE, C, 4));

        assertThat(next.inSync()).containsExactly(A, B);
        assertThat(next.primaryTerm()).isEqualTo(4);
        assertThat(next.primary()).isEqualTo(A);
    }

    @Test
    void aPrimaryOfAnOlderTermCannotRemoveAReplica() {
        PartitionState promoted = next(PartitionStateTransitions.promote(STATE, B));

        Transition transition = PartitionStateTransitions.removeFromInSync(promoted, C, 4);

        assertThat(transition).isInstanceOfSatisfying(Transition.Refused.class, refused ->
                assertThat(refused.reason()).isEqualTo("partition 2: cannot remove leaf-c from the in-sync set for"
                        + " term 4 (expected: the current term 5, primary leaf-b)"));
    }

    @Test
    void thePrimaryCannotBeRemovedFromTheInSyncSet() {
        assertThat(PartitionStateTransitions.removeFromInSync(STATE, A, 4)).isInstanceOf(Transition.Refused.class);
    }

    @Test
    void removingANodeAlreadyOutOfSyncChangesNothing() {
        assertThat(PartitionStateTransitions.removeFromInSync(STATE, OUTSIDER, 4)).isInstanceOf(Transition.Same.class);
    }

    @Test
    void theCurrentPrimaryAddsACaughtUpCopyAndAnOlderTermCannot() {
        PartitionState next = next(PartitionStateTransitions.addToInSync(STATE, OUTSIDER, 4));
        assertThat(next.inSync()).containsExactly(A, B, C, OUTSIDER);

        assertThat(PartitionStateTransitions.addToInSync(STATE, OUTSIDER, 3)).isInstanceOf(Transition.Refused.class);
        assertThat(PartitionStateTransitions.addToInSync(STATE, B, 4)).isInstanceOf(Transition.Same.class);
    }

    private static PartitionState next(Transition transition) {
        assertThat(transition).isInstanceOf(Transition.To.class);
        return ((Transition.To) transition).next();
    }

    @Test
    void aReplicaCaughtUpThroughThePrimaryJoinsOnlyAtTheVersionReadBeforeItsCatchUpFinished() {
        PartitionState without = new PartitionState(2, 4, A, Set.of(A, B), 7);
        assertThat(next(PartitionStateTransitions.addToInSyncAtVersion(without, C, 4, 7)).inSync())
                .containsExactlyInAnyOrder(A, B, C);
        assertThat(PartitionStateTransitions.addToInSyncAtVersion(without.withVersion(8), C, 4, 7))
                .as("a root fenced it since").isInstanceOfSatisfying(Transition.Refused.class, refused ->
                        assertThat(refused.reason()).contains("version 7").contains("current version 8"));
    }

    @Test
    void aFailedCopyTakesTheReplicaOutOrWhenItIsOutStillMovesTheVersionOn() {
        assertThat(next(PartitionStateTransitions.removeFromInSyncOrFence(STATE, C, 4)).inSync())
                .containsExactlyInAnyOrder(A, B);
        PartitionState fenced = next(PartitionStateTransitions.removeFromInSyncOrFence(STATE, OUTSIDER, 4));
        assertThat(fenced).as("written unchanged: the compare-and-set moves the version on").isEqualTo(STATE);
        assertThat(PartitionStateTransitions.removeFromInSyncOrFence(STATE, C, 3)).isInstanceOf(Transition.Refused.class);
        assertThat(PartitionStateTransitions.removeFromInSyncOrFence(STATE, A, 4)).isInstanceOf(Transition.Refused.class);
    }
}
