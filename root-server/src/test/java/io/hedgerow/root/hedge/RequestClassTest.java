package io.hedgerow.root.hedge;

import static io.hedgerow.root.hedge.RequestClass.CHEAP;
import static io.hedgerow.root.hedge.RequestClass.EXPENSIVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestClassTest {

    /** Queries as loadgen's QueryCategory writes them: terms, AND and OR of two terms. */
    @ParameterizedTest
    @ValueSource(strings = {
            "parliament",            // high_term, medium_term, low_term
            "+european +parliament", // and_high_high, and_high_med
            "european parliament",   // or_high_high, or_high_med
    })
    void loadgenCheapCategoriesAreCheap(String query) {
        assertThat(RequestClass.of(query)).isEqualTo(CHEAP);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "\"human rights\"", // phrase
            "parl*",            // prefix
    })
    void loadgenPhraseAndPrefixAreExpensive(String query) {
        assertThat(RequestClass.of(query)).isEqualTo(EXPENSIVE);
    }

    @Test
    void loadgenLargeOrIsExpensive() {
        StringJoiner twenty = new StringJoiner(" ");
        for (int i = 0; i < 20; i++) {
            twenty.add("term" + i);
        }
        assertThat(RequestClass.of(twenty.toString())).isEqualTo(EXPENSIVE);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "   ",
            "a b c",
            "a AND b OR c",
            "a && b || c",
            "+a -b !c",
            "(a OR b) AND NOT c",
            "title:treaty body:nice",
            "title:(treaty OR union)",
            "(a b)^2 c",
            "a^2 b^0.5",
            "e-mail c++",
            "c\\+\\+ \\*literal\\*",
            "title\\:x",
    })
    void fewPlainTermsWithOperatorsAreCheap(String query) {
        assertThat(RequestClass.of(query)).isEqualTo(CHEAP);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "a b c d",
            "+a +b +c +d",
            "(a OR b) AND (c OR d)",
            "te?t",
            "*",
            "*:*",
            "roam~",
            "roam~1",
            "/jo[hn]+/",
            "\"a b\"~2",
            "date:[1999 TO 2000]",
            "date:{1999 TO 2000}",
            "title:(a b c d)",
            "a AND b* ",
    })
    void wildcardsFuzzyRegexpPhrasesRangesAndManyTermsAreExpensive(String query) {
        assertThat(RequestClass.of(query)).isEqualTo(EXPENSIVE);
    }

    @Test
    void operatorsDoNotCountAsTerms() {
        assertThat(RequestClass.of("a AND b AND c")).isEqualTo(CHEAP);
        assertThat(RequestClass.of("a AND b AND c AND d")).isEqualTo(EXPENSIVE);
        // lower-case "and" is a term in the classic syntax
        assertThat(RequestClass.of("a and b")).isEqualTo(CHEAP);
        assertThat(RequestClass.of("a and b c")).isEqualTo(EXPENSIVE);
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> RequestClass.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("luceneQuery");
    }
}
