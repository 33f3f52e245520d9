package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueryParsingTest {
    @Test
    void theCachesUpkeepRunsOnTheParsingThreadNotInThePool() throws BadQueryException {
        QueryParsing parsing = new QueryParsing(new StandardAnalyzer(), List.of("body"));
        long before = ForkJoinPool.commonPool().getStealCount() + ForkJoinPool.commonPool().getQueuedSubmissionCount();
        for (int i = 0; i < 3 * QueryParsing.CACHED_QUERIES; i++) {
            parsing.parse("word" + i); // past the bound: evictions, the upkeep's heaviest work
        }
        long after = ForkJoinPool.commonPool().getStealCount() + ForkJoinPool.commonPool().getQueuedSubmissionCount();
        // Before: 8,844 tasks for these 30,000 parses. A few may come from other code in this JVM meanwhile.
        assertThat(after - before).as("tasks the common pool ran or holds").isLessThan(100);
    }

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
    void leavesBroadPrefixesToThePerPartitionExpansionLimit() throws BadQueryException {
        assertThat(oneField.parse("e*").toString()).isEqualTo("body:e*");
        assertThat(oneField.parse("e?ro").toString()).isEqualTo("body:e?ro");
    }

    @Test
    void refusesLeadingWildcardsNamingTheFlagThatAllowsThem() {
        for (String leading : List.of("*ment", "?uro", "/.*/", "/[a-z]+ment/", "human AND *ity", "title:*")) {
            assertThatThrownBy(() -> oneField.parse(leading), leading)
                    .isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("starts with a wildcard or pattern")
                    .hasMessageContaining("--allow-leading-wildcard");
        }
    }

    @Test
    void acceptsLeadingWildcardsWhenAllowed() throws BadQueryException {
        QueryParsing allowing = new QueryParsing(new StandardAnalyzer(), List.of("body"),
                QueryLimits.defaults().withLeadingWildcard(true));
        assertThat(allowing.parse("*ment").toString()).isEqualTo("body:*ment");
        assertThat(allowing.parse("/[a-z]+ment/").toString()).isEqualTo("body:/[a-z]+ment/");
    }

    @Test
    void refusesQueriesLongerThanTheLimitNamingIt() throws BadQueryException {
        QueryParsing short16 = new QueryParsing(new StandardAnalyzer(), List.of("body"),
                QueryLimits.defaults().withMaxQueryChars(16));
        assertThat(short16.parse("sixteen chars ok")).isNotNull();
        assertThatThrownBy(() -> short16.parse("seventeen chars!!")).isInstanceOf(BadQueryException.class)
                .hasMessage("query: 17 characters (expected: <= 16, the leaf's --max-query-chars)");
    }

    @Test
    void refusesMoreClausesThanAConfiguredLimit() throws BadQueryException {
        QueryParsing three = new QueryParsing(new StandardAnalyzer(), List.of("body"),
                QueryLimits.defaults().withMaxClauses(3));
        assertThat(three.parse("a1 b2 c3")).isNotNull();
        assertThatThrownBy(() -> three.parse("a1 b2 c3 d4")).isInstanceOf(BadQueryException.class)
                .hasMessageStartingWith("too many clauses: 4 (expected: <= 3, the leaf's --max-clauses");
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
                .hasMessageContaining("too many clauses: " + (limit + 2) + " (expected: <= " + limit);
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
