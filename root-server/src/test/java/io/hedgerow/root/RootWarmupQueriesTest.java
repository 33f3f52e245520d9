package io.hedgerow.root;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The warm-up's queries: the shapes users send, and a new query each time, so caches miss as they do under real load. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RootWarmupQueriesTest {
    private static final List<String> WORDS = IntStream.range(0, 200).mapToObj(i -> "word" + (char) ('a' + i % 26) + i).toList();

    @Test
    void everyQueryIsNewUntilThePairsRunOut() {
        Set<String> seen = new HashSet<>();
        int n = 50_000;
        for (long i = 0; i < n; i++) {
            seen.add(RootWarmup.query(WORDS, i));
        }
        // The term and prefix shapes repeat once per pass over the words (200 terms, fewer prefixes);
        // the four shapes of two or eight words never do within the first 199 passes.
        assertThat(seen.size()).isGreaterThan(n * 4 / 6);
        assertThat(RootWarmup.distinctQueries(WORDS)).isEqualTo(6L * 200 * 199);
    }

    @Test
    void makesTheShapesUsersSend() {
        assertThat(RootWarmup.query(WORDS, 0)).isEqualTo("worda0");
        assertThat(RootWarmup.query(WORDS, 1)).isEqualTo("worda0 wordb1");
        assertThat(RootWarmup.query(WORDS, 2)).isEqualTo("\"worda0 wordb1\"");
        assertThat(RootWarmup.query(WORDS, 3)).isEqualTo("+worda0 +wordb1");
        assertThat(RootWarmup.query(WORDS, 4)).isEqualTo("word*");
        assertThat(RootWarmup.query(WORDS, 5).split(" ")).hasSize(8);
        // The next pass over the words pairs each with another partner.
        assertThat(RootWarmup.query(WORDS, 6L * 200 + 1)).isEqualTo("worda0 wordc2");
    }

    @Test
    void withoutTwoWordsItSearchesEverything() {
        assertThat(RootWarmup.query(List.of(), 7)).isEqualTo("*:*");
        assertThat(RootWarmup.query(List.of("lonely"), 7)).isEqualTo("*:*");
        assertThat(RootWarmup.words("{\"hits\":[{\"body\":\"Hedgerows shelter the hawthorn\"}]}"))
                .contains("hedgerows", "shelter", "hawthorn");
    }
}
