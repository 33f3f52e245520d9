package io.hedgerow.loadgen.queries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuerySetFileTest {
    @TempDir
    Path dir;

    private static QuerySet sample() {
        Map<String, List<String>> categories = new LinkedHashMap<>();
        categories.put("high_term", List.of("que", "european"));
        categories.put("phrase", List.of("\"human rights\"", "\"états membres\""));
        categories.put("and_high_med", List.of("+den +forslaget"));
        return new QuerySet(List.of("Hedgerow query set", "seed: 7"), categories);
    }

    @Test
    void writesThenReadsTheSameSet() throws IOException {
        Path file = dir.resolve("sub/queries.tsv");
        QuerySetFile.write(sample(), file);

        assertThat(QuerySetFile.read(file)).isEqualTo(sample());
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo("""
                # Hedgerow query set
                # seed: 7
                high_term\tque
                high_term\teuropean
                phrase\t"human rights"
                phrase\t"états membres"
                and_high_med\t+den +forslaget
                """);
        assertThat(dir.resolve("sub")).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void skipsBlankLinesAndLaterCommentsAndGroupsCategoriesInFirstSeenOrder() throws IOException {
        QuerySet set = QuerySetFile.parse("hand.tsv", List.of(
                "# mine", "", "b_cat\tone", "# a note between queries", "a_cat\ttwo  ", "b_cat\tthree", "   "));

        assertThat(set.comments()).containsExactly("mine");
        assertThat(set.categoryNames()).containsExactly("b_cat", "a_cat");
        assertThat(set.queries("b_cat")).containsExactly("one", "three");
        assertThat(set.queries("a_cat")).containsExactly("two");
    }

    @Test
    void reportsBadLinesByNumberAndHowManyMoreThereWere() {
        List<String> lines = List.of(
                "# header",
                "high_term\tque",
                "no tab here",
                "High-Term\tque",
                "phrase\t   ",
                "phrase\ta\tb",
                "also no tab");

        assertThatThrownBy(() -> QuerySetFile.parse("bad.tsv", lines))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("query set bad.tsv: line 3: no tab between category and query in 'no tab here';"
                        + " line 4: category 'High-Term' (expected: lower-case letters, digits and '_', starting with a letter);"
                        + " line 5: empty query for category 'phrase'; 2 more bad lines")
                .hasMessageEndingWith("(expected: category TAB query on each line, '#' for comments)");
    }

    @Test
    void refusesAFileWithoutQueries() throws IOException {
        Path file = Files.writeString(dir.resolve("empty.tsv"), "# only a comment\n\n");

        assertThatThrownBy(() -> QuerySetFile.read(file))
                .hasMessageContaining("has no queries");
    }

    @Test
    void namesAMissingFile() {
        assertThatThrownBy(() -> QuerySetFile.read(dir.resolve("missing.tsv")))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("missing.tsv")
                .hasMessageContaining("no such query set file");
    }

    @Test
    void refusesATextThatIsNotUtf8() throws IOException {
        Path file = Files.write(dir.resolve("latin1.tsv"), "phrase\t\"\u00e9t\u00e9\"\n".getBytes(StandardCharsets.ISO_8859_1));

        assertThatThrownBy(() -> QuerySetFile.read(file)).hasMessageContaining("is not UTF-8 text");
    }

    @Test
    void aSetRefusesQueriesTheFileCouldNotHold() {
        assertThatThrownBy(() -> new QuerySet(List.of(), Map.of("phrase", List.of("a\tb"))))
                .hasMessageContaining("holds a tab or line break");
        assertThatThrownBy(() -> new QuerySet(List.of(), Map.of("Phrase", List.of("a"))))
                .hasMessageContaining("category: 'Phrase'");
        assertThatThrownBy(() -> new QuerySet(List.of(), Map.of("phrase", List.of())))
                .hasMessageContaining("no queries");
    }
}
