package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which root each client asks first and where it fails over to, scripted on a manual clock. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RootChoiceTest {
    private final ManualTicker ticker = new ManualTicker();

    @Test
    void clientIPrefersRootIModNThenTheNextOnes() {
        RootChoice choice = new RootChoice(2, ticker, Duration.ofSeconds(10));

        assertThat(choice.order(0)).containsExactly(0, 1);
        assertThat(choice.order(1)).containsExactly(1, 0);
        assertThat(choice.order(2)).containsExactly(0, 1);
        assertThat(choice.order(3)).containsExactly(1, 0);
        assertThat(new RootChoice(3, ticker, Duration.ofSeconds(10)).order(4)).containsExactly(1, 2, 0);
    }

    @Test
    void aRootThatFailedIsTriedLastUntilTheAvoidTimePasses() {
        RootChoice choice = new RootChoice(2, ticker, Duration.ofSeconds(10));

        choice.failed(0);

        assertThat(choice.order(0)).containsExactly(1, 0);
        assertThat(choice.order(1)).containsExactly(1, 0);
        ticker.advance(Duration.ofMillis(9_999));
        assertThat(choice.order(0)).containsExactly(1, 0);
        ticker.advance(Duration.ofMillis(1));
        assertThat(choice.order(0)).containsExactly(0, 1);
    }

    @Test
    void anAnswerEndsTheAvoidance() {
        RootChoice choice = new RootChoice(2, ticker, Duration.ofSeconds(10));
        choice.failed(0);

        choice.answered(0);

        assertThat(choice.order(0)).containsExactly(0, 1);
    }

    @Test
    void whenEveryRootFailedTheClientsOwnComesFirstAgain() {
        RootChoice choice = new RootChoice(2, ticker, Duration.ofSeconds(10));
        choice.failed(0);
        choice.failed(1);

        assertThat(choice.order(0)).containsExactly(0, 1);
        assertThat(choice.order(1)).containsExactly(1, 0);
    }

    @Test
    void refusesNoRootsAndNegativeClients() {
        assertThatThrownBy(() -> new RootChoice(0, ticker, Duration.ZERO)).hasMessageContaining("roots: 0 (expected: >= 1)");
        assertThatThrownBy(() -> new RootChoice(1, ticker, Duration.ZERO).order(-1)).hasMessageContaining("client: -1");
    }
}
