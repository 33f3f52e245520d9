package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class OptionsCheckTest {
    @Test
    void saysWhatTheRootRefusesAndNothingElse() throws Exception {
        try (FakeRoot root = new FakeRoot(2)) {
            root.answer("GET /search", 400, "{\"error\": \"bad_request\", \"detail\": \"unknown parameter 'hedge'\"}");
            OptionsCheck check = new OptionsCheck(root.uri());

            assertThat(check.refusal("/search?q=hedgerow&hedge=tied")).contains("HTTP 400: unknown parameter 'hedge'");
            assertThat(root.next().path()).isEqualTo("/search?q=hedgerow&hedge=tied");

            root.answer("GET /search", 503, "{\"error\": \"unavailable\", \"detail\": \"no leaf\"}");
            assertThat(check.refusal("/search?q=hedgerow")).as("a root in trouble is the run's business").isEmpty();
            root.answer("GET /search", 200, "{\"hits\": []}");
            assertThat(check.refusal("/search?q=hedgerow")).isEmpty();
        }
    }

    @Test
    void saysNothingWhenTheRootIsNotThere() {
        assertThat(new OptionsCheck(URI.create("http://127.0.0.1:1/")).refusal("/search?q=x")).isEmpty();
    }
}
