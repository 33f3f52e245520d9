package io.hedgerow.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.scenario.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The README's {@code ./hedgerow loadgen} commands parse as written, and the scenarios they name load. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReadmeLoadgenCommandsTest {
    @Test
    void everyLoadgenCommandParsesAndItsScenarioLoads() throws IOException {
        Path repository = Path.of("").toAbsolutePath();
        while (!Files.exists(repository.resolve("README.md"))) {
            repository = repository.getParent();
        }
        List<String> commands = new ArrayList<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(repository.resolve("README.md"))) {
            if (line.startsWith("```")) {
                inBlock = !inBlock;
            } else if (inBlock && line.replaceFirst("^\\$ ", "").startsWith("./hedgerow loadgen")) {
                commands.add(line.replaceFirst("^\\$ ", "").replaceFirst("\\s+#.*$", ""));
            }
        }
        assertThat(commands).as("the README's loadgen commands").isNotEmpty();
        for (String command : commands) {
            String[] words = command.trim().split("\\s+");
            String[] args = Arrays.copyOfRange(words, 2, words.length); // after "./hedgerow loadgen"
            CommandLine.ParseResult parsed = new CommandLine(new LoadgenCli()).parseArgs(args);
            assertThat(parsed.errors()).as(command).isEmpty();
            if (parsed.hasMatchedOption("--scenario")) {
                Path scenario = repository.resolve(parsed.<Path>matchedOptionValue("--scenario", null).toString());
                assertThat(Scenario.read(scenario).phases()).as(command).isNotEmpty();
            }
        }
    }
}
