package io.hedgerow.coordination;

import java.util.Objects;

/**
 * How a write to a partition's znode ended. A lost race is an outcome, not an exception: two writers
 * that read the same version both ask for a compare-and-set on it, one is {@link Written} and the
 * other gets {@link Conflict}, and the loser decides again from a fresh read (calling the
 * {@link ClusterStore} operation again does that). Exceptions ({@link CoordinationException}) are kept
 * for ZooKeeper being unreachable, when nobody knows whether the write happened.
 */
public sealed interface UpdateOutcome {
    /** Stored; {@code state.version()} is the znode's new version. */
    record Written(PartitionState state) implements UpdateOutcome {
        public Written {
            Objects.requireNonNull(state, "state");
        }
    }

    /** Nothing to write: the state read already was what was asked. */
    record Unchanged(PartitionState state) implements UpdateOutcome {
        public Unchanged {
            Objects.requireNonNull(state, "state");
        }
    }

    /** The change does not apply to the state read ({@code state}); {@code reason} says why. */
    record Refused(PartitionState state, String reason) implements UpdateOutcome {
        public Refused {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Another writer got there first: the znode is no longer at {@code expectedVersion} (for a create,
     * {@link PartitionState#UNSTORED}: the znode already exists). Nothing was written.
     */
    record Conflict(int partition, int expectedVersion) implements UpdateOutcome {
    }

    /** The partition has no znode (never created, or deleted). Nothing was written. */
    record Missing(int partition) implements UpdateOutcome {
    }
}
