package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The leaf's fault-injection flags: off unless asked for, and every misuse named before anything starts. */
class LeafCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = new CommandLine(new LeafCommand());
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void refusesAnInjectedDelayWithoutFaultInjection() {
        assertThat(run("--index", "nowhere", "--inject-delay", "50ms", "--inject-delay-probability", "0.05")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-delay needs --fault-injection");
    }

    @Test
    void refusesDelaySettingsWithoutADelay() {
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay-probability", "0.05")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-delay-probability and --inject-delay-for need --inject-delay");
    }

    @Test
    void refusesOutOfRangeDelaySettingsNamingThem() {
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay", "50ms",
                "--inject-delay-probability", "1.5")).isEqualTo(1);
        assertThat(err.toString()).contains("--inject-delay-probability: 1.5 (expected: > 0 and <= 1)");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay", "2m")).isEqualTo(1);
        assertThat(err.toString()).contains("--inject-delay: 2m (expected: at most 1m)");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay", "fast")).isEqualTo(2);
        assertThat(err.toString()).contains("'fast' is not a duration (expected e.g. 150ms, 10s, 2m, 1h)");
    }

    @Test
    void describesTheFaultInjectionFlagsInItsHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("--fault-injection", "--inject-delay=DURATION",
                "--inject-delay-probability=P", "--inject-delay-for=DURATION", "off by default");
    }
}
