package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When a process started with {@code --exit-with-parent} counts as having outlived its parent. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExitWithParentTest {
    @Test
    void aLiveParentOtherThanInitIsWaitedFor() {
        assertThat(ExitWithParent.orphaned(Optional.of(ProcessHandle.current()))).isFalse();
    }

    @Test
    void noParentOrInitMeansTheParentIsGone() {
        assertThat(ExitWithParent.orphaned(Optional.empty())).isTrue();
        assertThat(ExitWithParent.orphaned(ProcessHandle.of(1))).as("handed to init").isTrue();
    }
}
