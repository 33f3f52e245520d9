package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QueryFingerprintTest {

    private static String fp(String query) {
        return QueryFingerprint.of(query).text();
    }

    @Test
    void collapsesWhitespaceOutsidePhrasesAndRegularExpressions() {
        assertThat(fp("  european \t parliament\n")).isEqualTo("european parliament");
        assertThat(fp("title:\"european   parliament\"  vote*")).isEqualTo("title:\"european   parliament\" vote*");
        assertThat(fp("/ab  c/   x*")).isEqualTo("/ab  c/ x*");
        assertThat(fp("( a   OR  b )   AND c")).isEqualTo("(a OR b) AND c");
        assertThat(fp("title:(  a b  )^2")).isEqualTo("title:(a b)^2");
    }

    @Test
    void keepsEscapedCharactersAsWritten() {
        assertThat(fp("a\\  b*")).isEqualTo("a\\  b*"); // an escaped space is part of the term
        assertThat(fp("\\( b*")).isEqualTo("\\( b*"); // an escaped parenthesis opens nothing
        assertThat(fp("\"say \\\"hi  there\\\"\"   x*")).isEqualTo("\"say \\\"hi  there\\\"\" x*");
    }

    @Test
    void spellsOperatorsOneWayButLeavesLowerCaseWordsAlone() {
        assertThat(fp("(a && b) || c")).isEqualTo("(a AND b) OR c");
        assertThat(fp("(a b) && ! c")).isEqualTo("(a b) AND NOT c");
        // lower-case "and" is a term to the classic parser: a three-term OR, sorted
        assertThat(fp("rock and roll")).isEqualTo("rock and roll");
        assertThat(fp("rock OR and OR roll")).isEqualTo("and OR rock OR roll");
        assertThat(fp("rock AND roll")).isEqualTo("rock AND roll");
        assertThat(fp("rock and roll")).isNotEqualTo(fp("rock AND roll"));
    }

    @Test
    void sortsTheClausesOfAPlainList() {
        assertThat(fp("parliament AND european")).isEqualTo("european AND parliament");
        assertThat(fp("c AND a AND b")).isEqualTo("a AND b AND c");
        assertThat(fp("c && a && b")).isEqualTo("a AND b AND c");
        assertThat(fp("c OR a OR b")).isEqualTo("a OR b OR c");
        assertThat(fp("body:vote title:parliament")).isEqualTo("body:vote title:parliament");
        assertThat(fp("title:parliament body:vote")).isEqualTo("body:vote title:parliament");
        assertThat(fp("-war +peace treaty")).isEqualTo(fp("treaty -war +peace"));
        assertThat(fp("e-mail OR user@example.com OR 2024")).isEqualTo("2024 OR e-mail OR user@example.com");
        assertThat(fp("title:x b")).isEqualTo("b title:x"); // one bare clause among fielded ones
        assertThat(fp("b OR a OR b")).isEqualTo("a OR b OR b"); // a repeated clause weighs twice: kept
    }

    @Test
    void leavesOrderAloneWhereItCouldMatter() {
        // the classic parser reads these differently, so their order is kept
        assertThat(fp("parliament european")).isEqualTo("parliament european"); // one run of bare terms
        assertThat(fp("b title:x a")).isEqualTo("b title:x a"); // two runs that sorting would merge
        assertThat(fp("c AND b OR a")).isEqualTo("c AND b OR a");
        assertThat(fp("c b OR a")).isEqualTo("c b OR a");
        assertThat(fp("c AND b a")).isEqualTo("c AND b a");
        assertThat(fp("c AND -b")).isEqualTo("c AND -b"); // prefixes only in whitespace lists
        assertThat(fp("c NOT b")).isEqualTo("c NOT b");
        assertThat(fp("c AND")).isEqualTo("c AND");
        // phrases, wildcards, fuzziness, boosts, groups, ranges, escapes
        assertThat(fp("z \"a b\"")).isEqualTo("z \"a b\"");
        assertThat(fp("z a*")).isEqualTo("z a*");
        assertThat(fp("z a~1")).isEqualTo("z a~1");
        assertThat(fp("z a^2")).isEqualTo("z a^2");
        assertThat(fp("z (a)")).isEqualTo("z (a)");
        assertThat(fp("z date:[a TO b]")).isEqualTo("z date:[a TO b]");
        assertThat(fp("z a\\:b")).isEqualTo("z a\\:b");
        assertThat(fp("z title:a:b")).isEqualTo("z title:a:b");
        assertThat(fp("z -")).isEqualTo("z -");
    }

    @Test
    void keepsTheCaseOfTermsAndFields() {
        assertThat(fp("id:ABC")).isNotEqualTo(fp("id:abc"));
        assertThat(fp("Parliament")).isEqualTo("Parliament");
    }

    @Test
    void equalSpellingsShareAFingerprintAndAnId() {
        QueryFingerprint a = QueryFingerprint.of("  vote  AND   european ");
        QueryFingerprint b = QueryFingerprint.of("european && vote");
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.id()).isEqualTo(b.id()).hasSize(16).matches("[0-9a-f]{16}");
        assertThat(QueryFingerprint.of("european").id()).isNotEqualTo(a.id());
    }

    @Test
    void rejectsAnEmptyQuery() {
        assertThatThrownBy(() -> QueryFingerprint.of(" \t "))
                .hasMessage("query: empty (expected: a query in Lucene syntax)");
        assertThatThrownBy(() -> new QueryFingerprint("")).hasMessage("text: empty (expected: a normalized query)");
    }
}
