package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each role's JVM options: environment, then the file's jvm section, then defaults the launcher shares. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JvmOptionsTest {
    @TempDir
    Path dir;

    @Test
    void theLaunchersDefaultsAreTheSame() throws IOException {
        String launcher = Files.readString(ConfigReferenceTest.repository().resolve("root-server/src/dist/bin/java-runtime.sh"));
        for (String role : List.of("root", "leaf", "loadgen")) {
            Matcher line = Pattern.compile("(?m)^" + role.toUpperCase() + "_JVM_DEFAULT=\\((.*)\\)$").matcher(launcher);
            assertThat(line.find()).as(role + " in java-runtime.sh").isTrue();
            assertThat(List.of(line.group(1).split(" "))).as(role).isEqualTo(JvmOptions.DEFAULTS.get(role));
        }
    }

    @Test
    void environmentBeforeFileBeforeDefaults() throws IOException {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());
        ConfigFile file = ConfigFile.load(Files.writeString(dir.resolve("jvm.yaml"),
                "jvm:\n  leaf: [-XX:+UseSerialGC, -Xmx512m -Xss512k]\n  root: -Xmx3g\n"), keys);

        assertThat(JvmOptions.resolve("leaf", Map.of(), file).options())
                .containsExactly("-XX:+UseSerialGC", "-Xmx512m", "-Xss512k");
        assertThat(JvmOptions.resolve("leaf", Map.of("HEDGEROW_LEAF_JVM", " -Xmx4g  "), file).options())
                .containsExactly("-Xmx4g");
        assertThat(JvmOptions.resolve("root", Map.of(), file).source()).isEqualTo("file " + file.path());
        assertThat(JvmOptions.resolve("loadgen", Map.of(), file))
                .isEqualTo(new JvmOptions.Resolved(JvmOptions.DEFAULTS.get("loadgen"), "default"));
        assertThat(JvmOptions.resolve("leaf", Map.of(), null).options()).containsExactly("-XX:+UseParallelGC", "-Xmx1g");
    }

    @Test
    void refusesAnUnknownRoleOrSomethingThatIsNotAnOption() throws IOException {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());

        assertThatThrownBy(() -> ConfigFile.load(Files.writeString(dir.resolve("a.yaml"), "jvm: { leaves: -Xmx1g }\n"), keys))
                .hasMessageContaining("unknown key 'jvm.leaves' (nearest valid key: 'jvm.leaf')");
        assertThatThrownBy(() -> ConfigFile.load(Files.writeString(dir.resolve("b.yaml"), "jvm: { leaf: 1g }\n"), keys))
                .hasMessageContaining("jvm.leaf: '1g' (expected: JVM options starting with '-'");
    }
}
