package io.hedgerow.leaf.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The query-of-death check with a recorded halt: which queries kill, and what the leaf says first. */
class QueryOfDeathTest {
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private final List<Integer> halts = new ArrayList<>();
    private final QueryOfDeath killer = new QueryOfDeath("KILLME",
            new PrintStream(logged, true, StandardCharsets.UTF_8), halts::add);

    @Test
    void haltsWithItsExitCodeWhenTheQueryContainsTheTokenAnywhere() {
        assertThat(killer.check("hedge AND xKILLMEx", "search", 7)).isTrue();
        assertThat(halts).containsExactly(QueryOfDeath.EXIT_CODE);
        assertThat(logged.toString(StandardCharsets.UTF_8)).isEqualTo("query of death: search request 7 contains the "
                + "token 'KILLME'; the leaf halts with status 70" + System.lineSeparator());
    }

    @Test
    void letsOtherQueriesThroughCaseSensitively() {
        assertThat(killer.check("hedge killme", "search", 1)).isFalse();
        assertThat(killer.check("KILL ME", "fetch", 2)).isFalse();
        assertThat(killer.check("", "fetch", 3)).isFalse();
        assertThat(halts).isEmpty();
        assertThat(logged.size()).isZero();
    }

    @Test
    void noneNeverHalts() {
        assertThat(QueryOfDeath.NONE.check("anything at all", "search", 1)).isFalse();
        assertThat(QueryOfDeath.NONE.token()).isNull();
        assertThat(QueryOfDeath.halting(null)).isSameAs(QueryOfDeath.NONE);
    }

    @Test
    void refusesAnEmptyTokenWhichEveryQueryContains() {
        assertThatThrownBy(() -> new QueryOfDeath("", System.err, status -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("token: '' (expected: a non-empty string");
    }
}
