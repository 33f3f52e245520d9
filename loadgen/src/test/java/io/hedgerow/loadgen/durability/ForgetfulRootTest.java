package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.durability.ForgetfulRoot.Flaw;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole run (workload, final reads, checker, report) over real HTTP against a root that
 * acknowledges and then breaks its word: the run must say so, name the id, and write the history
 * that shows it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForgetfulRootTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    private DurabilityRun.Result run(ForgetfulRoot root) throws Exception {
        FailoverClient client = FailoverClient.of(new DocumentClient(root.uri(), "token", Duration.ofSeconds(5)));
        FinalReads reads = new FinalReads(client, List.of(root.uri()), Duration.ofSeconds(10), 2);
        DurabilityRun.Settings settings = new DurabilityRun.Settings(Duration.ofMillis(1500), 7, 2, 0.4,
                NemesisLoop.Timing.defaults(), "fake-7", dir, dir.resolve("out"));
        return new DurabilityRun(settings, List.of(), Ticker.system(), new PrintStream(log, true))
                .run(client, reads, Map.of("target", root.uri().toString()));
    }

    @Test
    void catchesAnAcknowledgedAddTheClusterForgot() throws Exception {
        try (ForgetfulRoot root = new ForgetfulRoot(Flaw.FORGETS_AN_ACKNOWLEDGED_ADD)) {
            DurabilityRun.Result result = run(root);

            assertThat(root.victims()).hasSize(1);
            assertThat(result.verdict().lost()).as("log:%n%s", log).containsExactlyElementsOf(root.victims());
            assertThat(result.verdict().resurrected()).isEmpty();
            assertThat(result.verdict().valid()).isFalse();
        }
        String out = log.toString();
        assertThat(out.strip().lines().reduce((a, b) -> b)).hasValueSatisfying(last ->
                assertThat(last).matches("acknowledged \\d+, lost 1, resurrected 0, split terms 0 \\(no term log: checked nothing\\)"));
        assertThat(out).contains("LOST (acknowledged, not readable): 1");
        assertThat(Files.readString(dir.resolve("out/durability.json"))).contains("\"lost\" : 1", "\"valid\" : false");
        assertThat(Files.readAllLines(dir.resolve("out/history.jsonl"))).anySatisfy(line ->
                assertThat(line).contains("\"type\":\"ok\"", "\"f\":\"add\""));
    }

    @Test
    void catchesAnAcknowledgedDeleteThatDidNotHappen() throws Exception {
        try (ForgetfulRoot root = new ForgetfulRoot(Flaw.IGNORES_AN_ACKNOWLEDGED_DELETE)) {
            DurabilityRun.Result result = run(root);

            assertThat(root.victims()).hasSize(1);
            assertThat(result.verdict().resurrected()).as("log:%n%s", log).containsExactlyElementsOf(root.victims());
            assertThat(result.verdict().lost()).isEmpty();
            assertThat(result.verdict().valid()).isFalse();
        }
    }

    @Test
    void passesARootThatKeepsItsWord() throws Exception {
        try (ForgetfulRoot root = new ForgetfulRoot(Flaw.NONE)) {
            DurabilityRun.Result result = run(root);

            assertThat(result.verdict().valid()).as("log:%n%s", log).isTrue();
            assertThat(result.verdict().acknowledgedAdds()).isPositive();
            assertThat(result.verdict().acknowledgedDeletes()).isPositive();
            assertThat(result.report().unavailableSeconds()).isZero();
        }
    }
}
