package io.hedgerow.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.queries.QueryCategory;
import io.hedgerow.loadgen.queries.QuerySet;
import io.hedgerow.loadgen.queries.QuerySetFile;
import io.hedgerow.loadgen.queries.SampleIndex;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class QueriesCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = new CommandLine(new QueriesCommand());
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void writesTheSetAndPrintsATableOfCategories() throws IOException {
        Path index = SampleIndex.store().dir();
        Path file = dir.resolve("q.tsv");

        int exit = run("--index", index.toString(), "--seed", "5", "--per-category", "12", "--out", file.toString());

        assertThat(exit).as(err.toString()).isZero();
        QuerySet set = QuerySetFile.read(file);
        assertThat(set.categoryNames()).containsExactlyElementsOf(QueryCategory.labels());
        assertThat(set.size()).isEqualTo(12 * QueryCategory.values().length);
        assertThat(set.comments()).anyMatch(line -> line.startsWith("seed: 5; up to 12 queries per category"));
        String printed = out.toString();
        assertThat(printed).contains("Wrote 120 queries in 10 categories to " + file)
                .containsPattern("category\\s+queries\\s+median hits\\s+no hits\\s+example")
                .containsPattern("(?m)^phrase\\s+12\\s+[\\d,]+\\s+0  \"")
                .containsPattern("prefix: 4-letter prefixes match \\d+ terms of body \\(median\\), \\d+ at most");
        for (QueryCategory category : QueryCategory.values()) {
            assertThat(printed).containsPattern("(?m)^" + category.label() + "\\s+12\\s");
        }
    }

    @Test
    void writesNextToTheIndexByDefaultAndTheSameSeedGivesTheSameFile() throws IOException {
        Path index = SampleIndex.copyTo(dir.resolve("europarl")).dir();

        assertThat(run("--index", index.toString(), "--per-category", "5")).as(err.toString()).isZero();
        Path file = dir.resolve("queries/europarl-42.tsv");
        byte[] first = Files.readAllBytes(file);
        assertThat(run("--index", index.toString(), "--per-category", "5")).isZero();

        assertThat(Files.readAllBytes(file)).isEqualTo(first);
        assertThat(Workload.defaultFile(dir, 42)).isEqualTo(file);
    }

    @Test
    void saysToBuildTheIndexWhenThereIsNone() {
        int exit = run("--index", dir.resolve("nothing").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).startsWith("queries: " + dir.resolve("nothing"))
                .contains("run ./hedgerow index first");
    }

    @Test
    void refusesAPerCategoryCountBelowOne() {
        assertThat(run("--index", dir.toString(), "--per-category", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--per-category: 0 (expected: 1..100000)");
    }

    @Test
    void hasHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("Usage: queries").contains("--per-category").contains("--seed");
    }
}
