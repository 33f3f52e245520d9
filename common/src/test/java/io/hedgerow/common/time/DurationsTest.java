package io.hedgerow.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void readsMillisecondsSecondsMinutesAndHours() {
        assertThat(Durations.parse("150ms")).isEqualTo(Duration.ofMillis(150));
        assertThat(Durations.parse(" 1.5s ")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("0.25ms")).isEqualTo(Duration.ofNanos(250_000));
    }

    @Test
    void refusesAnythingElseNamingTheText() {
        assertThatThrownBy(() -> Durations.parse("5 seconds"))
                .hasMessage("'5 seconds' is not a duration (expected e.g. 150ms, 10s, 2m, 1h)");
        assertThatThrownBy(() -> Durations.parse(null)).hasMessageContaining("'null' is not a duration");
        assertThatThrownBy(() -> Durations.parse("-5ms")).hasMessageContaining("'-5ms'");
    }

    @Test
    void formatsInTheShortestFormItReadsBack() {
        for (String text : new String[] {"50ms", "0.25ms", "1.5s", "30s", "2m", "1h", "90s"}) {
            assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
        }
        assertThat(Durations.format(Duration.ofSeconds(120))).isEqualTo("2m");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
    }
}
