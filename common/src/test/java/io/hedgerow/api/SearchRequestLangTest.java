package io.hedgerow.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A request's {@code lang} is a language code of 2 to 8 lower-case letters, or none. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SearchRequestLangTest {

    @Test
    void takesALanguageCodeOrNone() {
        assertThat(SearchRequest.builder("x").lang("de").build().lang()).isEqualTo("de");
        assertThat(SearchRequest.builder("x").lang("abcdefgh").build().lang()).isEqualTo("abcdefgh");
        assertThat(SearchRequest.builder("x").build().lang()).isNull();
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
