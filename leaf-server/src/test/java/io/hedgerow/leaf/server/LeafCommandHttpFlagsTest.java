package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The leaf's HTTP flags: described in its help, and a port out of range named before anything starts. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeafCommandHttpFlagsTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = new CommandLine(new LeafCommand());
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void describesTheHttpFlagsInItsHelp() {
        assertThat(run("--help")).isZero();
        String help = out.toString().replaceAll("\\s+", " "); // picocli wraps its lines
        assertThat(help).contains("--http-port=PORT", "(/health, /ready, /metrics)", "0 picks a free one",
                "--no-http");
    }

    @Test
    void refusesAnHttpPortOutOfRangeNamingIt() {
        assertThat(run("--index", "no-such-index", "--http-port", "70000")).isEqualTo(1);
        assertThat(err.toString()).contains("http port: 70000 (expected: 0..65535");
    }
}
