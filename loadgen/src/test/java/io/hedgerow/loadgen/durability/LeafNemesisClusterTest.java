package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.local.JavaLauncher;
import io.hedgerow.root.local.LocalCluster;
import io.hedgerow.root.local.LocalClusterOptions;
import io.hedgerow.root.local.RunDirectory;
import io.hedgerow.root.tail.TailSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short seeded fault run of CI: a real cluster (root in this JVM, leaves as child JVMs, as
 * {@code ./hedgerow local} runs them), the set workload for 50 s while the leaf nemesis kills and
 * pauses primaries and replicas, then every id read back. Nothing acknowledged may be lost or come
 * back. On a failure the message carries the seed, the verdict and the history's file.
 *
 * <p>The timeout only catches a hang: the run's own bounds add up to about 3.5 minutes on a slow
 * machine (start-up up to 60 s, the 50 s workload, a heal that waits up to 10 s for a killed leaf
 * and restarts it, then up to 40 s for {@code /ready} and 40 s for the final reads).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class LeafNemesisClusterTest {
    private static final long SEED = 11;
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @Test
    void losesNoAcknowledgedWriteUnderLeafKillsAndPauses(@TempDir Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("durability"));
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            documents.add(new SourceDocument("seed-" + i, Map.of("title", "hedge " + i, "body", "bramble " + i), i + 1));
        }
        new IndexBuilder(IndexOptions.defaults().withPartitions(4), IndexProgress.none())
                .build(index, "durability", IndexConfig.defaults(), documents);
        RunDirectory run = new RunDirectory(data.resolve("run"));
        LocalClusterOptions options = new LocalClusterOptions(index.dir(), 3, 2, "127.0.0.1", 0, run,
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"), System.getProperty("java.class.path"),
                        "256m"),
                STARTUP, false, Duration.ZERO, HedgeSettings.defaults(), TailSettings.defaults(), 0);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(log, true);
        DurabilityRun.Result result;
        try (LocalCluster cluster = LocalCluster.start(options, out)) {
            // As './hedgerow local' does after the start (with --root-warmup 0s): without it /ready says
            // "warming" for good, and the final reads wait out their whole patience for it.
            cluster.root().warmUp(Duration.ZERO);
            URI root = URI.create("http://127.0.0.1:" + cluster.httpPort() + "/");
            FailoverClient client = FailoverClient.of(new DocumentClient(root, cluster.writeToken(), Duration.ofSeconds(10)));
            FinalReads reads = new FinalReads(client, List.of(root), Duration.ofSeconds(40), 4);
            NemesisLoop.Timing timing = new NemesisLoop.Timing(Duration.ofSeconds(1), Duration.ofSeconds(3),
                    Duration.ofSeconds(2), Duration.ofSeconds(5));
            DurabilityRun.Settings settings = new DurabilityRun.Settings(Duration.ofSeconds(50), SEED, 3, 0.25, timing,
                    "ci-" + SEED, run.dir(), data.resolve("out"));
            result = new DurabilityRun(settings, List.of(new LeafNemesis(root, run)), Ticker.system(), out)
                    .run(client, reads, Map.of("seed", SEED));
        }
        SetChecker.Verdict verdict = result.verdict();
        System.out.print(log); // the run's story, in the test's output file, pass or fail
        String context = String.format("seed %d; the history of the failing ids and the nemesis:%n%s%nrun log:%n%s", SEED,
                excerpt(data.resolve("out/history.jsonl"), verdict), log);
        assertThat(log.toString()).as(context).contains("nemesis").contains("start: kill", "start: pause");
        assertThat(verdict.acknowledgedAdds()).as(context).isPositive();
        assertThat(result.readyAtEnd()).as("the root said ready once healed; " + context).isTrue();
        assertThat(verdict.lost()).as("acknowledged adds lost; " + context).isEmpty();
        assertThat(verdict.resurrected()).as("acknowledged deletes undone; " + context).isEmpty();
        assertThat(verdict.unreadable()).as("ids not readable at the end; " + context).isEmpty();
    }

    /** The history's lines about the first failing ids, and every nemesis line: the temporary folder goes with the test. */
    private static String excerpt(Path history, SetChecker.Verdict verdict) throws java.io.IOException {
        List<String> ids = new ArrayList<>();
        for (List<String> failing : List.of(verdict.lost(), verdict.resurrected(), verdict.unreadable())) {
            ids.addAll(failing.subList(0, Math.min(5, failing.size())));
        }
        return String.join("\n", java.nio.file.Files.readAllLines(history).stream()
                .filter(line -> line.contains("\"nemesis\"") || ids.stream().anyMatch(id -> line.contains("\"" + id + "\"")))
                .toList());
    }
}
