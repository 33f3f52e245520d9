package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Picocli formats every help line with {@link String#format}: a bare {@code %} (e.g. "10% of") makes it
 * warn on standard error and print the raw text, once per option, on every {@code --help}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelpTextTest {

    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            render(HedgerowCli.newCommandLine());
        } finally {
            System.setErr(stderr);
        }
        assertThat(warnings.toString(StandardCharsets.UTF_8)).doesNotContain("picocli WARN");
    }

    private static void render(CommandLine line) {
        assertThat(line.getUsageMessage()).isNotBlank();
        line.getSubcommands().values().forEach(HelpTextTest::render);
    }
}
