package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.root.sim.SimConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {

    @Test
    void hasAFlagForEverySimulatorOption() {
        CommandLine simulate = HedgerowCli.newCommandLine().getSubcommands().get("simulate");

        for (String option : SimConfig.defaults().options().keySet()) {
            assertThat(simulate.getCommandSpec().findOption("--" + option)).as("--%s", option).isNotNull();
        }
    }

    @Test
    void printsOneJsonSummaryPerRunOfASweepAndWritesTheHistograms(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cli = HedgerowCli.newCommandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));

        int exit = cli.execute("simulate", "--queries", "200", "--sweep", "leaves=2,20", "--policy", "hedged", "--json",
                "--out", dir.toString());

        assertThat(exit).isZero();
        JsonNode runs = new ObjectMapper().readTree(out.toString());
        assertThat(runs).hasSize(2);
        assertThat(runs.get(1).get("options").get("leaves").asText()).isEqualTo("20");
        for (String field : new String[] {"p50_ms", "p99_ms", "p999_ms", "slow_fraction", "extra_requests", "tainted"}) {
            assertThat(runs.get(0).has(field)).as(field).isTrue();
        }
        assertThat(Files.readString(dir.resolve("table.txt"))).startsWith("leaves");
        assertThat(dir.resolve("run-leaves=20.hgrm")).exists();
        for (String chart : new String[] {"latency.png", "p999.png"}) {
            assertThat(Files.readAllBytes(dir.resolve(chart))).as(chart).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
        }
    }

    @Test
    void refusesAnUnknownSweepOptionNamingIt() {
        StringWriter err = new StringWriter();
        CommandLine cli = HedgerowCli.newCommandLine();
        cli.setErr(new PrintWriter(err));

        int exit = cli.execute("simulate", "--sweep", "fanout=1,2");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("option: 'fanout' (expected: one of [leaves");
    }
}
