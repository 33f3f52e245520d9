package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.common.logging.LogCapture;
import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** At overload every search is slow: the slow-query log writes a few lines a second and counts the rest. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SlowQueryLogCapTest {
    private static final long SECOND = 1_000_000_000L;

    private final ManualTicker ticker = new ManualTicker();

    @Test
    void atMostTheCapASecondAndTheNextLineSaysHowManyWereLeftOut() {
        try (LogCapture lines = LogCapture.of(SlowQueryLog.LOGGER, Level.INFO)) {
            SlowQueryLog log = new SlowQueryLog(Duration.ofSeconds(1), ticker);
            SearchRequest request = SearchRequest.builder("europe").build();
            for (int i = 0; i < 25; i++) {
                log.failed("r" + i, request, new IllegalStateException("timed out"), 2 * SECOND);
            }
            assertThat(lines.messages()).hasSize(SlowQueryLog.LINES_PER_SECOND);
            assertThat(lines.messages()).noneMatch(line -> line.contains("left_out="));

            ticker.advance(Duration.ofSeconds(1));
            log.failed("next", request, new IllegalStateException("timed out"), 2 * SECOND);
            List<String> messages = lines.messages();
            assertThat(messages).hasSize(SlowQueryLog.LINES_PER_SECOND + 1);
            assertThat(messages.get(messages.size() - 1)).startsWith("request_id=next ")
                    .contains("outcome=internal_error left_out=15 query=\"europe\"");

            log.failed("after", request, new IllegalStateException("timed out"), 2 * SECOND);
            assertThat(lines.messages().get(lines.messages().size() - 1)).doesNotContain("left_out=");
        }
    }

    @Test
    void fastSearchesAreNeitherWrittenNorCounted() {
        try (LogCapture lines = LogCapture.of(SlowQueryLog.LOGGER, Level.INFO)) {
            SlowQueryLog log = new SlowQueryLog(Duration.ofSeconds(1), ticker);
            SearchRequest request = SearchRequest.builder("europe").build();
            for (int i = 0; i < 25; i++) {
                log.failed("fast" + i, request, new IllegalStateException("refused"), SECOND / 2);
            }
            log.failed("slow", request, new IllegalStateException("timed out"), 2 * SECOND);
            assertThat(lines.messages()).singleElement().asString().startsWith("request_id=slow ")
                    .doesNotContain("left_out=");
        }
    }

    @Test
    void theCapRefusesNonsense() {
        assertThatThrownBy(() -> new LineRateCap(ticker, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
