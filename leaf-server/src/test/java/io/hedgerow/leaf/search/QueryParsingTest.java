package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;

class QueryParsingTest {
    private final QueryParsing oneField = new QueryParsing(new StandardAnalyzer(), List.of("body"));
    private final QueryParsing twoFields = new QueryParsing(new StandardAnalyzer(), List.of("title", "body"));

    @Test
    void acceptsPrefixesWildcardsAndRegexpsWithALiteralStart() throws BadQueryException {
        assertThat(twoFields.parse("euro*").toString()).contains("title:euro*").contains("body:euro*");
        assertThat(oneField.parse("pa?liament").toString()).isEqualTo("body:pa?liament");
        assertThat(oneField.parse("/par[a-z]+/").toString()).isEqualTo("body:/par[a-z]+/");
        assertThat(oneField.parse("date:[1999 TO 2001]").toString()).isEqualTo("date:[1999 TO 2001]");
    }

    @Test
    void refusesPatternsThatWouldExpandToMostOfTheTermDictionary() {
        for (String runaway : List.of("e*", "title:e*", "e?ro", "/.*/", "/[a-z]+ment/", "human AND r*")) {
            assertThatThrownBy(() -> oneField.parse(runaway), runaway)
                    .isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("would expand to too many terms");
        }
    }

    @Test
    void refusesLeadingWildcards() {
        assertThatThrownBy(() -> oneField.parse("*ment")).isInstanceOf(BadQueryException.class)
                .hasMessageContaining("not allowed as first character");
    }

    @Test
    void countsEveryDefaultFieldAgainstTheClauseLimit() throws BadQueryException {
        int limit = IndexSearcher.getMaxClauseCount();
        String justUnder = terms(limit / 2);
        assertThat(twoFields.parse(justUnder)).isNotNull();

        // Each term becomes one clause per default field: fine for one field, too many for two.
        String over = terms(limit / 2 + 1);
        assertThat(oneField.parse(over)).isNotNull();
        assertThatThrownBy(() -> twoFields.parse(over)).isInstanceOf(BadQueryException.class)
                .hasMessageContaining("too many clauses: " + (limit + 2));
    }

    @Test
    void refusesBadSyntaxAndEmptyQueries() {
        assertThatThrownBy(() -> oneField.parse("title:(foo")).isInstanceOf(BadQueryException.class)
                .hasMessageContaining("Cannot parse");
        assertThatThrownBy(() -> oneField.parse("  ")).isInstanceOf(BadQueryException.class)
                .hasMessage("empty query");
    }

    private static String terms(int count) {
        return IntStream.range(0, count).mapToObj(i -> "term" + i).collect(Collectors.joining(" "));
    }
}
