package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
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
        assertThat(err.toString()).contains("error: --inject-delay-probability needs --inject-delay");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay-distribution", "exponential")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-delay-distribution needs --inject-delay");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-stall-every", "1s")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-stall-every needs --inject-stall");
    }

    @Test
    void refusesAnInjectedStallWithoutFaultInjectionOrAPeriod() {
        assertThat(run("--index", "nowhere", "--inject-stall", "150ms", "--inject-stall-every", "1s")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-stall needs --fault-injection");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-stall", "150ms")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-stall needs --inject-stall-every (e.g. --inject-stall 150ms "
                + "--inject-stall-every 1s)");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-stall", "1s", "--inject-stall-every", "1s"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-stall-every: 1s (expected: more than --inject-stall 1s)");
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-stall", "150ms", "--inject-stall-every", "1s",
                "--inject-stall-for", "2h")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --inject-stall-for: 2h (expected: > 0 and at most 1h; leave it out "
                + "for as long as the leaf runs)");
    }

    @Test
    void readsTheQueryCacheFlagOffByDefaultAndRefusesAnythingButOnOrOff() {
        LeafCommand command = new LeafCommand();
        new CommandLine(command).parseArgs("--index", "nowhere");
        assertThat(command.queryCache().enabled()).as("off by default").isFalse();
        new CommandLine(command).parseArgs("--index", "nowhere", "--query-cache", "ON");
        assertThat(command.queryCache().enabled()).isTrue();
        assertThat(command.queryCache().maxRamBytes()).isBetween(1L, 32L << 20);
        new CommandLine(command).parseArgs("--index", "nowhere", "--query-cache", "true");
        assertThat(command.queryCache().enabled()).as("a configuration file's unquoted on").isTrue();
        assertThat(run("--index", "nowhere", "--query-cache", "maybe")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --query-cache: maybe (expected: on or off)");
    }

    @Test
    void refusesAnUnknownDelayDistribution() {
        assertThat(run("--index", "nowhere", "--fault-injection", "--inject-delay", "1s",
                "--inject-delay-distribution", "gaussian")).isEqualTo(2);
        assertThat(err.toString()).contains("'gaussian' is not a delay distribution (expected: fixed or exponential)");
    }

    @Test
    void startsAFaultsFlagsNameAndTheyLastUntilTheLeafExits() throws Exception {
        LeafCommand command = new LeafCommand();
        new CommandLine(command).parseArgs("--index", "nowhere", "--fault-injection", "--inject-delay", "1s",
                "--inject-delay-probability", "0.01", "--inject-delay-distribution", "Exponential",
                "--inject-stall", "150ms", "--inject-stall-every", "1s");
        assertThat(command.initialDelay()).isEqualTo(new InjectedDelay(1_000_000_000L, 0.01, InjectedDelay.UNTIL_EXIT, 0,
                InjectedDelay.Distribution.EXPONENTIAL));
        assertThat(command.initialStall()).isEqualTo(new InjectedStall(150_000_000L, 1_000_000_000L, InjectedDelay.UNTIL_EXIT));
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
    void refusesAQueryOfDeathWithoutFaultInjectionOrWithAnEmptyToken() {
        assertThat(run("--index", "nowhere", "--query-of-death", "KILLME")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --query-of-death needs --fault-injection (fault injection is off "
                + "unless enabled)");
        assertThat(run("--index", "nowhere", "--fault-injection", "--query-of-death", "")).isEqualTo(1);
        assertThat(err.toString()).contains("error: --query-of-death: '' (expected: a non-empty token");
    }

    @Test
    void takesAQueryOfDeathWithFaultInjection() {
        LeafCommand command = new LeafCommand();
        new CommandLine(command).parseArgs("--index", "nowhere", "--fault-injection", "--query-of-death", "KILLME");
        assertThat(command.queryOfDeath()).isEqualTo("KILLME");
        LeafCommand none = new LeafCommand();
        new CommandLine(none).parseArgs("--index", "nowhere", "--fault-injection");
        assertThat(none.queryOfDeath()).isNull();
    }

    @Test
    void describesTheFaultInjectionFlagsInItsHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("--fault-injection", "--inject-delay=DURATION",
                "--inject-delay-probability=P", "--inject-delay-for=DURATION", "--inject-delay-distribution=KIND",
                "--inject-stall=DURATION", "--inject-stall-every=DURATION", "--inject-stall-for=DURATION",
                "--query-of-death=TOKEN",
                "For tests and demos");
    }
}
