package io.hedgerow.coordination;

import java.util.Objects;

/**
 * What a {@link PartitionStateTransitions} function decides for one partition state: a next state to
 * write, nothing to write, or a refusal that says why.
 */
public sealed interface Transition {
    /** Write {@code next} in place of the state it was derived from. */
    record To(PartitionState next) implements Transition {
        public To {
            Objects.requireNonNull(next, "next");
        }
    }

    /** The state already is what was asked (e.g. the node is already in sync): nothing to write. */
    record Same() implements Transition {
    }

    /** The change does not apply to this state; {@code reason} names the values and what was expected. */
    record Refused(String reason) implements Transition {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
