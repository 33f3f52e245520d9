package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** docs/configuration.md is generated from the code, and the example configuration loads. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigReferenceTest {
    static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("hedgerow"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no ./hedgerow above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    @Test
    void theCheckedInReferenceIsUpToDate() throws IOException {
        String generated = ConfigReference.markdown();

        assertThat(Files.readString(repository().resolve("docs/configuration.md")))
                .as("docs/configuration.md is out of date: run ./hedgerow config reference > docs/configuration.md")
                .isEqualTo(generated);
    }

    @Test
    void theReferenceNamesEveryKey() {
        String generated = ConfigReference.markdown();
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());

        for (String key : keys.keys()) {
            String section = key.substring(0, key.indexOf('.'));
            String name = key.substring(key.indexOf('.') + 1);
            int sectionAt = generated.indexOf("\n## `" + section + "`\n");
            assertThat(sectionAt).as(section).isPositive();
            assertThat(generated.indexOf("| `" + name + "` |", sectionAt)).as(key).isPositive();
        }
        // Machine-independent: no core count or environment leaks into the reference.
        assertThat(generated).doesNotContain("here " + Runtime.getRuntime().availableProcessors() + ")");
    }

    @Test
    void theExampleConfigurationLoadsAndStartsEveryCommandsParse() {
        Path example = repository().resolve("docs/examples/hedgerow.yaml");
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());

        ConfigFile file = ConfigFile.load(example, keys);

        assertThat(file.value("local.leaves")).isEqualTo("4");
        assertThat(file.value("root.cache-ttl")).isEqualTo("30s");
        assertThat(file.jvm()).containsOnlyKeys("root", "leaf", "loadgen");
        for (List<String> args : List.of(List.of("local"), List.of("demo"), List.of("root", "--leaves", "a:1"),
                List.of("leaf", "--index", "x"), List.of("local", "stop"))) {
            CommandLine top = HedgerowCli.newCommandLine(Map.of(ConfigKeys.CONFIG_ENV, example.toString()));
            top.parseArgs(args.toArray(String[]::new));
        }
    }
}
