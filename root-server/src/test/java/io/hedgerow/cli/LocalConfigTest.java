package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.local.LocalClusterOptions;
import io.hedgerow.root.local.LocalCoordination;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** The leaves {@code local} starts get the file's leaf section, under local's own flags, and jvm.leaf. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalConfigTest {
    @TempDir
    Path dir;

    private Path config() throws IOException {
        return Files.writeString(dir.resolve("hedgerow.yaml"), """
                root: { hedge: tied }
                leaf: { workers: 3, warmup: 5s, slice: 2ms, queue-depth: { batch: 16 } }
                jvm: { leaf: "-XX:+UseSerialGC -Xmx256m" }
                """);
    }

    private static LocalClusterOptions options(Map<String, String> env, Path index, String... args) {
        CommandLine top = HedgerowCli.newCommandLine(env);
        top.parseArgs(args);
        CommandSpec local = top.getSubcommands().get(args[0]).getCommandSpec();
        ClusterOptions cluster = (ClusterOptions) local.mixins().get("cluster").userObject();
        return cluster.toOptions(index, local);
    }

    @Test
    void everyLeafGetsTheFileAndReadsItsLeafSection() throws IOException {
        Path config = config();

        LocalClusterOptions options = options(Map.of(), dir, "local", "--config", config.toString());

        assertThat(options.leafArguments()).startsWith("--config", config.toAbsolutePath().toString());
        assertThat(options.hedge().defaultMode().toString()).isEqualToIgnoringCase("tied");
        // The command line LeafSpawner gives a leaf (its own flags, then these), read as the leaf reads it.
        List<String> leafArgs = new ArrayList<>(List.of("leaf", "--index", dir.toString(), "--workers",
                Integer.toString(options.leafWorkers())));
        leafArgs.addAll(options.leafArguments());
        CommandLine leafCli = HedgerowCli.newCommandLine(Map.of());
        leafCli.parseArgs(leafArgs.toArray(String[]::new));
        CommandSpec leaf = leafCli.getSubcommands().get("leaf").getCommandSpec();
        assertThat(leaf.findOption("--slice").<Duration>getValue()).isEqualTo(Duration.ofMillis(2));
        assertThat(leaf.findOption("--queue-depth").<Map<String, Integer>>getValue()).isEqualTo(Map.of("batch", 16));
        assertThat(leaf.findOption("--workers").<Integer>getValue()).isEqualTo(3);
    }

    @Test
    void leafWorkersAndWarmupComeFromTheLeafSectionUnlessLocalSetsThem() throws IOException {
        Path config = config();

        LocalClusterOptions fromLeafSection = options(Map.of(), dir, "local", "--config", config.toString());
        assertThat(fromLeafSection.leafWorkers()).isEqualTo(3);
        assertThat(fromLeafSection.leafWarmup()).isEqualTo(Duration.ofSeconds(5));

        LocalClusterOptions fromFlags = options(Map.of(), dir, "local", "--config", config.toString(),
                "--leaf-workers", "2", "--leaf-warmup", "1s");
        assertThat(fromFlags.leafWorkers()).isEqualTo(2);
        assertThat(fromFlags.leafWarmup()).isEqualTo(Duration.ofSeconds(1));

        Path localSection = Files.writeString(dir.resolve("local.yaml"),
                "local: { leaf-workers: 1 }\nleaf: { workers: 3 }\n");
        assertThat(options(Map.of(), dir, "local", "--config", localSection.toString()).leafWorkers()).isEqualTo(1);

        LocalClusterOptions withoutFile = options(Map.of(), dir, "local");
        assertThat(withoutFile.leafWorkers()).isZero(); // the cores shared out, as before
        assertThat(withoutFile.leafArguments()).isEmpty();
    }

    @Test
    void theLeavesJvmsGetTheLeafRolesOptions() throws IOException {
        Path config = config();

        assertThat(options(Map.of(), dir, "local", "--config", config.toString()).launcher().options())
                .containsExactly("-XX:+UseSerialGC", "-Xmx256m");
        assertThat(options(Map.of("HEDGEROW_LEAF_JVM", "-XX:+UseParallelGC -Xmx2g"), dir, "local", "--config",
                config.toString()).launcher().options()).containsExactly("-XX:+UseParallelGC", "-Xmx2g");
        assertThat(options(Map.of(), dir, "local").launcher().options())
                .containsExactly("-XX:+UseParallelGC", "-Xmx1g");
        assertThat(options(Map.of(ConfigKeys.CONFIG_ENV, config.toString()), dir, "demo").launcher().options())
                .containsExactly("-XX:+UseSerialGC", "-Xmx256m");
    }

    @Test
    void theCoordinationStoreComesFromZkFlagsOrTheLocalSectionAndIsAnEmbeddedZooKeeperByDefault() throws IOException {
        String shape = "local-" + dir.getFileName() + "-4x2";
        assertThat(options(Map.of(), dir, "local").coordination()).as("local without a flag")
                .isEqualTo(LocalCoordination.embedded(0, shape));
        assertThat(options(Map.of(), dir, "demo").coordination()).as("demo without a flag")
                .isEqualTo(LocalCoordination.embedded(0, shape));
        assertThat(options(Map.of(), dir, "local", "--leaves", "2").coordination().cluster())
                .as("another shape on the same run directory keeps state of its own")
                .isEqualTo("local-" + dir.getFileName() + "-2x2");
        assertThat(options(Map.of(), dir, "local", "--zk", "none").coordination()).as("--zk none").isNull();
        assertThat(options(Map.of(), dir, "demo", "--zk", "none").coordination()).as("demo --zk none").isNull();
        assertThat(options(Map.of(), dir, "local", "--config",
                Files.writeString(dir.resolve("none.yaml"), "local: { zk: none }\n").toString()).coordination())
                .as("local.zk: none").isNull();

        LocalClusterOptions embedded = options(Map.of(), dir, "local", "--zk", "embedded", "--zk-port", "2190");
        assertThat(embedded.coordination()).isEqualTo(LocalCoordination.embedded(2190, shape));

        Path file = Files.writeString(dir.resolve("zk.yaml"),
                "local: { zk: \"zk1:2181,zk2:2181\", zk-cluster: europarl }\n");
        assertThat(options(Map.of(), dir, "local", "--config", file.toString()).coordination())
                .isEqualTo(LocalCoordination.external("zk1:2181,zk2:2181", "europarl"));
        assertThat(options(Map.of(), dir, "demo", "--config", file.toString()).coordination())
                .as("demo shares local's section").isEqualTo(LocalCoordination.external("zk1:2181,zk2:2181", "europarl"));
    }

    @Test
    void theDefaultClusterNameSaysTheIndexAndTheShapeAndIsAValidName() {
        assertThat(ClusterOptions.defaultClusterName(Path.of("data/europarl"), 4, 2)).isEqualTo("local-europarl-4x2");
        assertThat(ClusterOptions.defaultClusterName(Path.of("/tmp/my index!"), 3, 1)).isEqualTo("local-my-index--3x1");
        String longName = ClusterOptions.defaultClusterName(Path.of("x".repeat(100)), 12, 3);
        assertThat(longName).hasSize(64).startsWith("local-xxx").endsWith("-12x3");
        new io.hedgerow.coordination.ClusterPaths(longName); // accepted as a znode name
    }
}
