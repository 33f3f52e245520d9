package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code hedgerow zk}, which the launcher script runs as {@code ./hedgerow zk}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ZooKeeperCommandTest {

    @Test
    void isASubcommandWithZooKeepersUsualPortAndItsDataUnderTheDataFolder() {
        CommandLine zk = HedgerowCli.newCommandLine().getSubcommands().get("zk");

        assertThat(zk).isNotNull();
        assertThat(zk.getCommandSpec().findOption("--port").defaultValue()).isEqualTo("2181");
        assertThat(zk.getCommandSpec().findOption("--data-dir").defaultValue()).endsWith("/zk");
    }

    @Test
    void refusesAPortOutOfRangeWithoutStarting(@TempDir Path dir) {
        StringWriter err = new StringWriter();
        CommandLine cli = HedgerowCli.newCommandLine();
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err, true));

        int exit = cli.execute("zk", "--port", "70000", "--data-dir", dir.resolve("zk").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("port: 70000 (expected: 0-65535)");
    }
}
