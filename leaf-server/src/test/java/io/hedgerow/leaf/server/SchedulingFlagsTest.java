package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The scheduling flags' defaults are strings picocli needs as constants; they must say what
 * {@link SchedulingConfig}'s named defaults say, with lanes on as the command line starts leaves.
 */
class SchedulingFlagsTest {
    private static SchedulingFlags parse(String... args) {
        SchedulingFlags flags = new SchedulingFlags();
        new CommandLine(flags).parseArgs(args);
        return flags;
    }

    @Test
    void withoutFlagsTheLeafSchedulesWithTheNamedDefaultsAndLanesOn() {
        SchedulingFlags flags = parse();

        assertThat(flags.scheduling()).isEqualTo(new SchedulingConfig(SchedulingConfig.DEFAULT_DEPTHS,
                SchedulingConfig.DEFAULT_LOWER_CLASS_EVERY, SchedulingConfig.DEFAULT_EXPENSIVE_COST,
                SchedulingConfig.DEFAULT_CONTINUATION_AGING, SchedulingConfig.DEFAULT_LANE_SLICE));
        assertThat(flags.slice()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void theQueueDepthHelpNamesTheDefaultDepths() {
        var depth = new CommandLine(new SchedulingFlags()).getCommandSpec().findOption("--queue-depth");
        StringBuilder defaults = new StringBuilder();
        for (int i = 0; i < SchedulingConfig.CLASSES; i++) {
            defaults.append(i == 0 ? "" : ",").append(SchedulingConfig.className(i)).append('=')
                    .append(SchedulingConfig.DEFAULT_DEPTHS.get(i));
        }

        assertThat(String.join(" ", depth.description())).contains("(default: " + defaults + ")");
    }

    @Test
    void setsADepthByClassNameAndRefusesAnUnknownClass() {
        SchedulingFlags flags = parse("--queue-depth", "Batch=8,shadow=2", "--expensive-cost", "0");

        assertThat(flags.scheduling()).isEqualTo(SchedulingConfig.defaults().withDepth(Priority.BATCH, 8)
                .withDepth(Priority.SHADOW, 2));
        assertThatThrownBy(() -> parse("--queue-depth", "urgent=8").scheduling())
                .hasMessage("--queue-depth: 'urgent' is not a scheduling class (expected: interactive, backup, batch or shadow)");
    }
}
