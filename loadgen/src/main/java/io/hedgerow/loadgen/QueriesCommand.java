package io.hedgerow.loadgen;

import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.loadgen.queries.CategoryResult;
import io.hedgerow.loadgen.queries.GeneratedQueries;
import io.hedgerow.loadgen.queries.OpenIndex;
import io.hedgerow.loadgen.queries.QuerySetFile;
import io.hedgerow.loadgen.queries.QuerySetGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code loadgen queries}: generates a query set from an index's vocabulary and writes it, then
 * prints what each category came out as. Exit codes: 0 written, 1 failed, 2 usage error.
 */
@Command(name = "queries", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Generates a query set from an index's own vocabulary, in the categories of Lucene's nightly benchmarks,"
                    + " and writes it as a file of 'category TAB query' lines.",
            "The same index and seed always give the same file. Load runs use it with --queries FILE, or find"
                    + " <data>/queries/europarl-<seed>.tsv by themselves; pick categories with --mix, e.g."
                    + " high_term=30,phrase=10,large_or=2.",
            "Categories: high_term, medium_term, low_term (one term by doc freq band), and_high_high, and_high_med"
                    + " (+a +b), or_high_high, or_high_med (a b), phrase (\"a b\"), large_or (20-50 terms), prefix (abcd*)."})
public final class QueriesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--index", paramLabel = "DIR", defaultValue = "${env:HEDGEROW_DATA:-data}/europarl",
            description = "Index to take the vocabulary from (built by ./hedgerow index). Default: ${DEFAULT-VALUE}.")
    private Path indexDir;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed: the same index and seed give the same queries. Default: ${DEFAULT-VALUE}.")
    private long seed;

    @Option(names = "--per-category", paramLabel = "N", defaultValue = "" + QuerySetGenerator.DEFAULT_PER_CATEGORY,
            description = "Queries per category (fewer where the index has too few). Default: ${DEFAULT-VALUE}.")
    private int perCategory;

    @Option(names = "--out", paramLabel = "FILE",
            description = "File to write. Default: <index's parent>/queries/<index dir name>-<seed>.tsv, where load"
                    + " runs look for the Europarl set.")
    private Path out;

    @Override
    public Integer call() {
        if (perCategory < 1 || perCategory > 100_000) {
            throw new ParameterException(spec.commandLine(),
                    "--per-category: " + perCategory + " (expected: 1..100000)");
        }
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        PartitionStore store = new PartitionStore(indexDir);
        Path file = out != null ? out : defaultOut(store, seed);
        try {
            stdout.printf("Generating %d queries per category from %s (seed %d)...%n", perCategory, store.dir(), seed);
            stdout.flush();
            long startNanos = System.nanoTime();
            GeneratedQueries generated;
            try (OpenIndex index = OpenIndex.open(store)) {
                generated = QuerySetGenerator.create(index, QuerySetGenerator.defaultField(index.manifest()))
                        .generate(seed, perCategory);
            }
            QuerySetFile.write(generated.set(), file);
            double seconds = (System.nanoTime() - startNanos) / (double) TimeUnit.SECONDS.toNanos(1);
            stdout.printf(Locale.ROOT, "Wrote %,d queries in %d categories to %s (%.1f s)%n%n", generated.set().size(),
                    generated.set().categories().size(), file, seconds);
            stdout.print(summary(generated));
            stdout.flush();
            return 0;
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            stderr.println("queries: " + oneLine(e));
            stderr.flush();
            return 1;
        }
    }

    /** {@code <parent>/queries/<name>-<seed>.tsv}: for data/europarl, the file load runs look for. */
    static Path defaultOut(PartitionStore store, long seed) {
        Path parent = store.dir().getParent();
        return parent.resolve("queries").resolve(store.dir().getFileName() + "-" + seed + ".tsv");
    }

    /** One row per category: count, median hits, queries without hits, an example; then notes. */
    static String summary(GeneratedQueries generated) {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%-14s %7s %11s %7s  %s%n",
                "category", "queries", "median hits", "no hits", "example"));
        StringBuilder notes = new StringBuilder();
        for (CategoryResult result : generated.results()) {
            String example = result.queries().isEmpty() ? "-" : abbreviate(result.queries().getFirst(), 60);
            text.append(String.format(Locale.ROOT, "%-14s %7d %,11d %7d  %s%n", result.category(),
                    result.queries().size(), result.medianHits(), result.withoutHits(), example));
            if (!result.note().isEmpty()) {
                notes.append(String.format(Locale.ROOT, "  %s: %s%n", result.category(), result.note()));
            }
        }
        if (!notes.isEmpty()) {
            text.append("Notes:").append(System.lineSeparator()).append(notes);
        }
        return text.toString();
    }

    private static String abbreviate(String text, int length) {
        return text.length() <= length ? text : text.substring(0, length - 3) + "...";
    }

    private static String oneLine(Exception e) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        return message.replaceAll("\\s*\\R\\s*", " ");
    }
}
