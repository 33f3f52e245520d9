package io.hedgerow.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request's {@code lang} is a language code of 2 to 8 lower-case letters, several of them
 * (comma-separated, kept sorted and once each), {@code *} for every language, or none.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SearchRequestLangTest {

    @Test
    void takesALanguageCodeOrNone() {
        assertThat(SearchRequest.builder("x").lang("de").build().lang()).isEqualTo("de");
        assertThat(SearchRequest.builder("x").lang("abcdefgh").build().lang()).isEqualTo("abcdefgh");
        assertThat(SearchRequest.builder("x").build().lang()).isNull();
    }

    @Test
    void takesSeveralCodesSortedAndOnceEachOrEveryLanguage() {
        assertThat(SearchRequest.builder("x").lang("fr,de,fr").build().lang()).isEqualTo("de,fr");
        assertThat(SearchRequest.builder("x").lang(" fr , de").build().languages()).containsExactly("de", "fr");
        assertThat(SearchRequest.builder("x").langs(java.util.List.of("nl", "de")).build().lang()).isEqualTo("de,nl");
        assertThat(SearchRequest.builder("x").lang("*").build().languages()).containsExactly(SearchRequest.ALL_LANGUAGES);
        assertThat(SearchRequest.builder("x").langs(java.util.List.of()).build().lang()).isNull();
        assertThat(SearchRequest.builder("x").build().languages()).isEmpty();
        assertThat(SearchRequest.builder("x").lang("fr,de").build())
                .as("one spelling: equal requests, one cache key").isEqualTo(SearchRequest.builder("x").lang("de,fr").build());
    }

    @Test
    void refusesAListWithABadCodeOrEveryLanguageAmongOthersNamingTheCode() {
        for (String bad : new String[] {"de,", "de,DE", "*,de", "de,,fr", "de,*"}) {
            assertThatThrownBy(() -> SearchRequest.builder("x").lang(bad).build())
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("in '" + bad + "' (expected: language codes");
        }
    }

    @Test
    void refusesAnythingElseNamingIt() {
        for (String bad : new String[] {"d", "abcdefghi", "DE", "de-AT", "d3", ""}) {
            assertThatThrownBy(() -> SearchRequest.builder("x").lang(bad).build())
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lang: '" + bad + "' (expected: a language code");
        }
    }
}
