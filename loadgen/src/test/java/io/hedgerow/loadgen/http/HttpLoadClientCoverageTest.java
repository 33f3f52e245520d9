package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.http.LoopbackHttp.Heard;
import io.hedgerow.loadgen.http.LoopbackHttp.Reply;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over a real socket: the client hands its listener a tainted answer's coverage, and NaN for a
 * complete one, and an error answer's code.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpLoadClientCoverageTest {
    private static final String COMPLETE = "{\"took_ms\":2.1,\"total_hits\":{\"value\":1,\"relation\":\"eq\"},"
            + "\"tainted\":false,\"coverage\":{\"partitions_total\":16,\"partitions_answered\":16,\"docs_fraction\":1.0},"
            + "\"hits\":[]}";

    @Test
    void passesTheDocsFractionOfTaintedAnswersOnly() throws Exception {
        try (LoopbackHttp http = LoopbackHttp.serving(request -> request.query().contains("refused")
                ? Reply.of(503, "{\"error\":\"overloaded\",\"detail\":\"busy\"}")
                : Reply.of(200, request.query().contains("partial") ? CoverageFieldTest.TAINTED : COMPLETE))) {
            HttpLoadClient client = http.client(4);

            Heard tainted = LoopbackHttp.send(client, LoadRequest.get("/search?q=partial"));
            Heard complete = LoopbackHttp.send(client, LoadRequest.get("/search?q=whole"));
            Heard refused = LoopbackHttp.send(client, LoadRequest.get("/search?q=refused"));

            assertThat(tainted).isEqualTo(new Heard(200, true, 0.937512, null));
            assertThat(complete.tainted()).isFalse();
            assertThat(complete.docsFraction()).as("not read when not tainted").isNaN();
            assertThat(refused).isEqualTo(new Heard(503, false, Double.NaN, "overloaded"));
        }
    }
}
