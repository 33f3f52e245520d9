package io.hedgerow.loadgen.durability;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One durability run, start to verdict: the set workload for {@code duration} while the nemesis
 * loop strikes and heals; then heal, wait for the root to be ready, read every id, check, and
 * write {@code history.jsonl} and {@code durability.json} to the output folder.
 */
public final class DurabilityRun {
    private final Settings settings;
    private final List<Nemesis> nemeses;
    private final Ticker ticker;
    private final PrintStream out;

    /**
     * @param duration     how long the workload runs
     * @param clients      concurrent clients
     * @param deleteShare  share of operations that delete
     * @param timing       the nemesis's spells
     * @param runTag       prefix of the ids (unique per run)
     * @param termsDir     the run directory whose {@code terms/} holds term logs; null for none
     * @param output       where the history and report go
     */
    public record Settings(Duration duration, long seed, int clients, double deleteShare, NemesisLoop.Timing timing,
            String runTag, Path termsDir, Path output) {
    }

    /** What the run found. */
    public record Result(SetChecker.Verdict verdict, DurabilityReport report, boolean readyAtEnd) {
    }

    public DurabilityRun(Settings settings, List<Nemesis> nemeses, Ticker ticker, PrintStream out) {
        this.settings = settings;
        this.nemeses = List.copyOf(nemeses);
        this.ticker = ticker;
        this.out = out;
    }

    public Result run(FailoverClient client, FinalReads reads, Map<String, Object> described) throws IOException,
            InterruptedException {
        History history = new History();
        long start = ticker.nanoTime();
        SetWorkload workload = new SetWorkload(client, history, ticker, start, settings.runTag(), settings.clients(),
                settings.deleteShare(), settings.seed());
        NemesisLoop nemesis = new NemesisLoop(nemeses, history, ticker, start, settings.timing(), settings.seed() + 1, out);
        out.printf(Locale.ROOT, "Durability run %s: %d clients for %s, nemesis %s, seed %d%n", settings.runTag(),
                settings.clients(), settings.duration(), nemeses.isEmpty() ? "none"
                        : String.join("+", nemeses.stream().map(Nemesis::name).toList()), settings.seed());
        nemesis.start();
        try {
            workload.runUntil(start + settings.duration().toNanos());
        } finally {
            nemesis.stop();
        }
        long workloadNanos = ticker.nanoTime() - start;
        out.printf(Locale.ROOT, "Workload done after %.1fs; healed; waiting for the roots to be ready%n", workloadNanos / 1e9);
        boolean ready = reads.awaitReady();
        if (!ready) {
            out.println("warning: a root did not say ready; reading through any that answers all the same");
        }
        List<String> ids = SetChecker.idsToRead(history);
        out.printf("Reading %d ids back%n", ids.size());
        Map<String, Presence> found = reads.readAll(ids);
        TermLog terms = settings.termsDir() != null ? TermLog.read(settings.termsDir()) : TermLog.none();
        SetChecker.Verdict verdict = SetChecker.check(history, found, terms);
        DurabilityReport report = DurabilityReport.of(history, workloadNanos);
        Files.createDirectories(settings.output());
        history.write(settings.output().resolve("history.jsonl"));
        report.writeJson(settings.output().resolve("durability.json"), described, verdict);
        print(verdict, report, nemesis);
        return new Result(verdict, report, ready);
    }

    private void print(SetChecker.Verdict verdict, DurabilityReport report, NemesisLoop nemesis) {
        out.printf(Locale.ROOT, "ops: %d ok, %d fail, %d info (indeterminate), %d unfinished; %d acknowledged adds, %d"
                        + " acknowledged deletes; %d indeterminate adds present%n", verdict.ok(), verdict.fail(), verdict.info(),
                verdict.unfinished(), verdict.acknowledgedAdds(), verdict.acknowledgedDeletes(), verdict.recovered());
        out.printf(Locale.ROOT, "write throughput %.1f/s over %.1fs, unavailable seconds %d, faults %d (%d failed actions)%n",
                report.writesPerSecond(), report.seconds(), report.unavailableSeconds(), report.faults(), nemesis.failures());
        examples("LOST (acknowledged, not readable)", verdict.lost());
        examples("RESURRECTED (acknowledged delete undone)", verdict.resurrected());
        examples("UNREADABLE at the end (not verified)", verdict.unreadable());
        examples("unexpected (refused add present)", verdict.unexpected());
        examples("SPLIT TERM", verdict.terms().splitTerms());
        if (verdict.terms().active()) {
            out.printf(Locale.ROOT, "term log: %d term changes read from %s%n", verdict.terms().changes(),
                    settings.termsDir().resolve("terms"));
        } else {
            // Leaves log terms only with a coordination store (local --zk; durability.sh --zk): none, no terms.
            out.println("note: no term log (<run dir>/terms/*.log; leaves write one with a coordination store, e.g."
                    + " durability.sh --zk): the split-terms check checked nothing");
        }
        out.println("History: " + settings.output().resolve("history.jsonl") + ", report: "
                + settings.output().resolve("durability.json"));
        out.println(verdict.finalLine());
    }

    private void examples(String what, List<String> ids) {
        if (!ids.isEmpty()) {
            out.printf("%s: %d, e.g. %s%n", what, ids.size(), ids.subList(0, Math.min(10, ids.size())));
        }
    }
}
