package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonlSourceTest {
    @TempDir
    Path tmp;

    @Test
    void readsIdsAndFieldsInFileOrderSkippingBlankLines() throws IOException {
        Path file = write("docs.jsonl", """
                {"id": "a", "zeta": "last letter", "alpha": "first letter"}

                {"body": "id need not come first", "id": "b"}\r
                   \t
                {"id": "c"}
                """);

        List<SourceEntry> entries = readAll(JsonlSource.open(file, IndexConfig.defaults()));

        assertThat(entries).containsExactly(
                new SourceDocument("a", Map.of("zeta", "last letter", "alpha", "first letter"), 1),
                new SourceDocument("b", Map.of("body", "id need not come first"), 3),
                new SourceDocument("c", Map.of(), 5));
        assertThat(((SourceDocument) entries.get(0)).fields().keySet()).containsExactly("zeta", "alpha");
    }

    @Test
    void keepsNumbersAndBooleansAsTheirJsonTextArraysAsListsAndDropsNulls() throws IOException {
        List<SourceEntry> entries = readAll(source("""
                {"id": "t", "price": 1.50, "n": -7, "big": 12345678901234567890, "ok": true, "tags": ["a", 2, false, null], "gone": null}
                """));

        assertThat(entries).containsExactly(new SourceDocument("t", Map.of("price", "1.50", "n", "-7",
                "big", "12345678901234567890", "ok", "true", "tags", List.of("a", "2", "false")), 1));
    }

    @Test
    void acceptsIntegralIdsAsTheirDecimalString() throws IOException {
        List<SourceEntry> entries = readAll(source("""
                {"id": 42}
                {"id": -7}
                {"id": 123456789012345678901234567890}
                """));

        assertThat(entries).extracting(entry -> ((SourceDocument) entry).id())
                .containsExactly("42", "-7", "123456789012345678901234567890");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON                 | not json at all                        | line 2: not valid JSON: Unrecognized token 'not'
            truncated object         | {"id": "x"                             | line 2: not valid JSON: Unexpected end-of-input
            an array                 | [1, 2]                                 | line 2: expected a JSON object, got array
            a string                 | "just text"                            | line 2: expected a JSON object, got string
            missing id               | {"title": "t"}                         | line 2: missing 'id' (expected: a non-empty string or an integer)
            empty id                 | {"id": ""}                             | line 2: 'id' is empty (expected: a non-empty string or an integer)
            fractional id            | {"id": 1.5}                            | line 2: 'id' must be a string or an integer, got number
            boolean id               | {"id": true}                           | line 2: 'id' must be a string or an integer, got boolean
            object id                | {"id": {"n": 1}}                       | line 2: 'id' must be a string or an integer, got object
            repeated id              | {"id": "x", "id": "y"}                 | line 2: 'id' appears twice
            object field             | {"id": "x", "tags": {"a": 1}}          | line 2: field 'tags' must be a string, number, boolean or an array of them, got object
            array of objects         | {"id": "x", "tags": [{"a": 1}]}        | line 2: field 'tags' must hold strings, numbers or booleans, got an array holding an object
            array of arrays          | {"id": "x", "tags": [["a"]]}           | line 2: field 'tags' must hold strings, numbers or booleans, got an array holding an array
            repeated field           | {"id": "x", "t": "a", "t": "b"}        | line 2: field 't' appears twice
            two objects on a line    | {"id": "x"} {"id": "y"}                | line 2: unexpected content after the JSON object
            """)
    void reportsEachKindOfBadLineWithItsNumberAndProblem(String kind, String line, String expected) throws IOException {
        List<SourceEntry> entries = readAll(source("{\"id\": \"good\"}\n" + line + "\n{\"id\": \"after\"}\n"));

        assertThat(entries).hasSize(3);
        assertThat(entries.get(1)).isInstanceOf(BadLine.class);
        assertThat(((BadLine) entries.get(1)).describe()).startsWith(expected);
        assertThat(entries.get(2)).as("reading goes on after a bad line").isEqualTo(new SourceDocument("after", Map.of(), 3));
    }

    @Test
    void reportsAFieldTheConfigRejects() throws IOException {
        List<SourceEntry> entries = readAll(new JsonlSource("docs.jsonl", stream("""
                {"id": "1", "title": "known", "secret": "not in the config"}
                """), IndexConfig.europarl()));

        assertThat(entries).containsExactly(
                new BadLine(1, "field 'secret' is not in the index config (unknown_fields: reject)"));
    }

    @Test
    void reportsALineThatIsNotUtf8() throws IOException {
        byte[] bytes = "{\"id\": \"a\", \"t\": \"caf\u00ff\"}\n".getBytes(StandardCharsets.ISO_8859_1);

        List<SourceEntry> entries = readAll(new JsonlSource("latin1.jsonl", new ByteArrayInputStream(bytes), IndexConfig.defaults()));

        assertThat(entries).singleElement().isInstanceOf(BadLine.class);
        assertThat(((BadLine) entries.get(0)).reason()).startsWith("not valid JSON: Invalid UTF-8");
    }

    @Test
    void reportsALineOverTheLengthLimitAndReadsOn() throws IOException {
        String longLine = "{\"id\": \"long\", \"body\": \"" + "x".repeat(100) + "\"}";
        JsonlSource source = new JsonlSource("docs.jsonl", stream(longLine + "\n{\"id\": \"short\"}\n"), IndexConfig.defaults(), 64);

        assertThat(readAll(source)).containsExactly(
                new BadLine(1, "line is longer than 64 bytes"),
                new SourceDocument("short", Map.of(), 2));
    }

    @Test
    void readsTheLastLineWithoutANewline() throws IOException {
        assertThat(readAll(source("{\"id\": \"a\"}\n{\"id\": \"b\"}"))).hasSize(2);
    }

    @Test
    void decompressesAGzippedFile() throws IOException {
        Path file = tmp.resolve("docs.jsonl.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write("{\"id\": \"zipped\", \"body\": \"hello\"}\n".getBytes(StandardCharsets.UTF_8));
        }

        assertThat(readAll(JsonlSource.open(file, IndexConfig.defaults())))
                .containsExactly(new SourceDocument("zipped", Map.of("body", "hello"), 1));
    }

    @Test
    void failsTheBuildAtTheFirstBadLineByDefault() throws IOException {
        Path file = write("docs.jsonl", """
                {"id": "1", "title": "fine"}
                {"id": "2", "tags": {"a": 1}}
                {"id": "3", "title": [1]}
                """);
        IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none());

        try (JsonlSource source = JsonlSource.open(file, IndexConfig.defaults())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> builder.build(new PartitionStore(tmp.resolve("index")), "docs", IndexConfig.defaults(), source))
                    .isInstanceOf(BadInputException.class)
                    .hasMessage("docs.jsonl: line 2: field 'tags' must be a string, number, boolean or an array of them, got object");
        }
    }

    @Test
    void skipModeCountsBadLinesAndIndexesTheRest() throws IOException {
        Path file = write("docs.jsonl", """
                {"id": "1", "title": "one"}
                oops
                {"id": "3", "title": "three"}
                {"id": 4.5}
                {"id": "5", "title": "five"}
                """);
        IndexBuilder builder = new IndexBuilder(
                IndexOptions.defaults().withPartitions(2).withBadLines(BadLinePolicy.SKIP), IndexProgress.none());

        IndexSummary summary;
        try (JsonlSource source = JsonlSource.open(file, IndexConfig.defaults())) {
            summary = builder.build(new PartitionStore(tmp.resolve("index")), "docs", IndexConfig.defaults(), source);
        }

        assertThat(summary.docs()).isEqualTo(3);
        assertThat(summary.badLinesSkipped()).isEqualTo(2);
        assertThat(summary.firstBadLines()).extracting(BadLine::lineNumber).containsExactly(2L, 4L);
        assertThat(summary.render()).contains("skipped 2 bad lines:", "line 2: not valid JSON", "line 4: 'id' must be");
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(tmp.resolve(name), content);
    }

    private static ByteArrayInputStream stream(String content) {
        return new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8));
    }

    private static JsonlSource source(String content) {
        return new JsonlSource("test.jsonl", stream(content), IndexConfig.defaults());
    }

    static List<SourceEntry> readAll(DocumentSource source) throws IOException {
        List<SourceEntry> entries = new ArrayList<>();
        try (source) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                entries.add(entry);
            }
        }
        return entries;
    }
}
