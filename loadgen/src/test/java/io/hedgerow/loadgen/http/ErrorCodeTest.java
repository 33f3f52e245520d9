package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
    private static String of(String body) {
        return ErrorCode.of(Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    @Test
    void readsTheCodeOfAnErrorBody() {
        assertThat(of("{\"error\":\"blocklisted\",\"detail\":\"refused: \\\"error\\\":\\\"x\\\"\"}")).isEqualTo("blocklisted");
        assertThat(of("{\"error\":\"dangerous_query\",\"detail\":\"...\"}")).isEqualTo("dangerous_query");
    }

    @Test
    void findsNothingWhereThereIsNoCode() {
        assertThat(of("{\"took_ms\":1.0}")).isNull();
        assertThat(of("{\"error\":\"\"}")).isNull();
        assertThat(of("{\"error\":\"Not A Code\"}")).isNull();
        assertThat(of("{\"error\":\"" + "a".repeat(60) + "\"}")).as("too long to be one").isNull();
        assertThat(of("<html>502 Bad Gateway</html>")).isNull();
    }
}
