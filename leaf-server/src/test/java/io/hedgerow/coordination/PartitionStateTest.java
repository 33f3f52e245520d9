package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PartitionStateTest {
    private static final NodeId A = NodeId.of("leaf-a");
    private static final NodeId B = NodeId.of("leaf-b");

    @Test
    void initialStateHasTheFirstTermThePrimaryInSyncAndNoVersion() {
        PartitionState state = PartitionState.initial(3, A, List.of(B));

        assertThat(state.primaryTerm()).isEqualTo(PartitionState.FIRST_TERM);
        assertThat(state.inSync()).containsExactly(A, B);
        assertThat(state.version()).isEqualTo(PartitionState.UNSTORED);
    }

    @Test
    void refusesAPrimaryOutsideTheInSyncSet() {
        assertThatThrownBy(() -> new PartitionState(0, 1, A, Set.of(B), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("primary: leaf-a (expected: in the in-sync set [leaf-b])");
    }

    @Test
    void refusesATermBelowTheFirstANegativePartitionAndAVersionBelowUnstored() {
        assertThatThrownBy(() -> new PartitionState(0, 0, A, Set.of(A), 0))
                .hasMessage("primaryTerm: 0 (expected: >= 1)");
        assertThatThrownBy(() -> new PartitionState(-1, 1, A, Set.of(A), 0))
                .hasMessage("partition: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new PartitionState(0, 1, A, Set.of(A), -2))
                .hasMessage("version: -2 (expected: >= -1)");
    }

    @Test
    void copiesTheInSyncSetSortedAndImmutable() {
        Set<NodeId> given = new HashSet<>(Set.of(B, A));
        PartitionState state = new PartitionState(0, 1, A, given, 0);
        given.clear();

        assertThat(state.inSync()).containsExactly(A, B);
        assertThatThrownBy(() -> state.inSync().add(NodeId.of("leaf-c")))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void nodeIdsAreValidZnodeNames() {
        assertThatThrownBy(() -> NodeId.of("..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeId.of("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeId.of("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(NodeId.of("leaf-0.x_1").value()).isEqualTo("leaf-0.x_1");
    }
}
