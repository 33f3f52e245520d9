package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class IndexCommandTest {
    private static final String GOOD_LINES = """
            {"id": "1", "title": "first", "body": "the first document"}
            {"id": "2", "title": "second", "body": "the second document"}
            {"id": "3", "title": "third", "body": "the third document"}
            """;

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void buildsAnIndexFromJsonLinesAndPrintsTheSummary() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES);

        int exit = run("--input", input.toString(), "--data", tmp.resolve("data").toString(), "--partitions", "2");

        assertThat(exit).isZero();
        assertThat(err.toString()).isEmpty();
        PartitionStore store = new PartitionStore(tmp.resolve("data/docs"));
        assertThat(store.isComplete()).isTrue();
        assertThat(store.readManifest().name()).isEqualTo("docs");
        assertThat(store.readManifest().docCount()).isEqualTo(3);
        assertThat(store.readManifest().config()).isEqualTo(IndexConfig.defaults());
        assertThat(out.toString())
                .contains("indexed 3 docs into 2 partitions in ")
                .contains("index 'docs' in " + store.dir() + ", ");
    }

    @Test
    void rebuildsAnIndexOfAnOlderFormatInsteadOfKeepingOneNothingCanServe() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES);
        String[] args = {"--input", input.toString(), "--data", tmp.resolve("data").toString(), "--partitions", "2"};
        assertThat(run(args)).isZero();
        PartitionStore store = new PartitionStore(tmp.resolve("data/docs"));
        Path manifest = store.dir().resolve(PartitionStore.MANIFEST_FILE);
        Files.writeString(manifest, Files.readString(manifest)
                .replaceFirst("\"format\"\\s*:\\s*\\d+", "\"format\" : 2"));
        assertThat(store.isComplete()).isTrue();
        out.getBuffer().setLength(0);

        int exit = run(args);

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("rebuilding index 'docs'").contains("indexed 3 docs into 2 partitions");
        assertThat(store.readManifest().docCount()).isEqualTo(3);
    }

    @Test
    void writesToOutUnderTheGivenNameWithTheGivenConfig() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES);
        Path config = Files.writeString(tmp.resolve("config.json"), "{\"analyzer\": \"english\"}");
        Path outDir = tmp.resolve("elsewhere");

        int exit = run("--input", input.toString(), "--config", config.toString(), "--name", "articles",
                "--out", outDir.toString(), "--partitions", "3", "--no-merge");

        assertThat(exit).isZero();
        IndexManifest manifest = new PartitionStore(outDir).readManifest();
        assertThat(manifest.name()).isEqualTo("articles");
        assertThat(manifest.partitions()).isEqualTo(3);
        assertThat(manifest.config().analyzer()).isEqualTo("english");
    }

    @Test
    void badLineExitsOneNamingTheLineOnStderr() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), """
                {"id": "1", "title": "fine"}
                {"id": "2", "tags": {"a": "b"}}
                """);

        int exit = run("--input", input.toString(), "--data", tmp.toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("index: docs.jsonl: line 2: field 'tags' must be a string, number, boolean or an array of them, got object"
                + " (use --skip-bad to skip bad lines)" + System.lineSeparator());
        assertThat(new PartitionStore(tmp.resolve("docs")).isComplete()).isFalse();
    }

    @Test
    void skipBadIndexesTheRestAndReportsTheSkippedLines() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES + "{\"id\": \"4\", \"tags\": {\"a\": 1}}\nnonsense\n");

        int exit = run("--input", input.toString(), "--data", tmp.toString(), "--skip-bad");

        assertThat(exit).isZero();
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString())
                .contains("indexed 3 docs into 16 partitions")
                .contains("skipped 2 bad lines:")
                .contains("  line 4: field 'tags' must be a string, number, boolean or an array of them, got object")
                .contains("  line 5: not valid JSON");
        assertThat(new PartitionStore(tmp.resolve("docs")).readManifest().docCount()).isEqualTo(3);
    }

    @Test
    void leavesACompleteIndexAloneUnlessForced() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES);
        String[] args = {"--input", input.toString(), "--data", tmp.toString(), "--partitions", "2"};
        assertThat(run(args)).isZero();
        PartitionStore store = new PartitionStore(tmp.resolve("docs"));
        String firstBuild = store.readManifest().createdAt();
        Files.writeString(input, GOOD_LINES + "{\"id\": \"4\"}\n");

        out.getBuffer().setLength(0);
        assertThat(run(args)).isZero();
        assertThat(out.toString()).contains("index 'docs' in " + store.dir() + " is already complete: 3 docs in 2 partitions, built "
                + firstBuild + "; use --force to rebuild it");
        assertThat(store.readManifest().docCount()).isEqualTo(3);

        out.getBuffer().setLength(0);
        assertThat(run("--input", input.toString(), "--data", tmp.toString(), "--partitions", "2", "--force")).isZero();
        assertThat(out.toString()).contains("indexed 4 docs");
        assertThat(store.readManifest().docCount()).isEqualTo(4);
    }

    @Test
    void unknownCorpusIsAUsageErrorListingTheKnownOnes() {
        int exit = run("--corpus", "wikipedia", "--data", tmp.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--corpus: 'wikipedia' (expected one of [europarl])");
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void partitionsOutOfRangeIsAUsageError() {
        assertThat(run("--partitions", "0", "--data", tmp.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--partitions: 0 (expected: 1..10000)");
    }

    @Test
    void inputAndCorpusTogetherIsAUsageError() {
        assertThat(run("--input", "x.jsonl", "--corpus", "europarl")).isEqualTo(2);
        assertThat(err.toString()).contains("--input and --corpus");
    }

    @Test
    void scaleTwoBuildsTwiceEuroparlUnderItsOwnName() throws IOException {
        int exit = run("--scale", "2", "--partitions", "4", "--no-merge", "--data", tmp.toString());

        assertThat(exit).as(err.toString()).isZero();
        assertThat(err.toString()).isEmpty();
        PartitionStore store = new PartitionStore(tmp.resolve("europarl-x2"));
        IndexManifest manifest = store.readManifest();
        assertThat(manifest.name()).isEqualTo("europarl-x2");
        assertThat(manifest.docCount()).isEqualTo(35_194);
        assertThat(manifest.scale()).isEqualTo(2);
        assertThat(manifest.config()).isEqualTo(IndexConfig.europarl());
        assertThat(out.toString()).startsWith("loading europarl and splitting its sentences, to make it 2 times bigger")
                .contains("indexed 35,194 docs into 4 partitions in ")
                .contains("index 'europarl-x2' in " + store.dir() + ", ");
        assertThat(tmp.resolve("europarl")).doesNotExist();

        out.getBuffer().setLength(0);
        assertThat(run("--scale", "2", "--partitions", "4", "--data", tmp.toString())).isZero();
        assertThat(out.toString()).contains("index 'europarl-x2' in " + store.dir() + " is already complete: 35,194 docs in 4 partitions");

        out.getBuffer().setLength(0);
        assertThat(run("--scale", "3", "--partitions", "4", "--out", store.dir().toString())).isZero();
        assertThat(out.toString()).contains("is already complete").contains("(at scale 2, not the 3 asked for)");
    }

    @Test
    void scaleWithInputIsAUsageError() {
        assertThat(run("--input", "x.jsonl", "--scale", "2", "--data", tmp.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--scale works only on a bundled corpus (--corpus), not on --input");
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void scaleOutOfRangeIsAUsageError() {
        assertThat(run("--scale", "0", "--data", tmp.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--scale: 0 (expected: 1..10000)");
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void missingInputFailsWithOneLine() {
        Path missing = tmp.resolve("missing.jsonl");

        assertThat(run("--input", missing.toString(), "--data", tmp.toString())).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("index: no such file: " + missing + System.lineSeparator());
    }

    @Test
    void badConfigFailsWithOneLineNamingTheFile() throws IOException {
        Path input = Files.writeString(tmp.resolve("docs.jsonl"), GOOD_LINES);
        Path config = Files.writeString(tmp.resolve("config.json"), "{\"analyzer\": \"klingon\"}");

        assertThat(run("--input", input.toString(), "--config", config.toString(), "--data", tmp.toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("index: invalid index config " + config).contains("'klingon'");
        assertThat(err.toString().lines()).hasSize(1);
    }

    @Test
    void everyOptionSaysItsDefault() {
        CommandLine commandLine = new CommandLine(new IndexCommand());
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            assertThat(String.join(" ", option.description())).as(option.longestName()).contains("Default: ");
        }
        String usage = commandLine.getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(usage).contains("Default: 16.", "Default: data.", "europarl");
    }

    private int run(String... args) {
        return new CommandLine(new IndexCommand())
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
    }
}
