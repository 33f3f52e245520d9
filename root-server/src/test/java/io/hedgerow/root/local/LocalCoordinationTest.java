package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@code local --zk} accepts. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LocalCoordinationTest {
    @Test
    void embeddedStartsItsOwnServerOnTheGivenPort() {
        LocalCoordination zk = LocalCoordination.parse("embedded", 2182, "europarl");

        assertThat(zk.isEmbedded()).isTrue();
        assertThat(zk.embeddedPort()).isEqualTo(2182);
        assertThat(zk.settings("127.0.0.1:2182").connectString()).isEqualTo("127.0.0.1:2182");
        assertThat(zk.settings("127.0.0.1:2182").cluster()).isEqualTo("europarl");
    }

    @Test
    void anEnsembleIsUsedAsGiven() {
        LocalCoordination zk = LocalCoordination.parse("zk1:2181,zk2:2181", 2181, "default");

        assertThat(zk.isEmbedded()).isFalse();
        assertThat(zk.connectString()).isEqualTo("zk1:2181,zk2:2181");
    }

    @Test
    void noneChoosesNoStoreAndTheOthersTheirStore() {
        assertThat(LocalCoordination.choose("none", 0, "default")).isEmpty();
        assertThat(LocalCoordination.choose("embedded", 0, "default")).contains(LocalCoordination.embedded(0, "default"));
        assertThat(LocalCoordination.choose("zk1:2181", 0, "default"))
                .contains(LocalCoordination.external("zk1:2181", "default"));
        assertThatThrownBy(() -> LocalCoordination.parse("none", 0, "default"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAnythingElseSayingWhatItExpects() {
        for (String wrong : new String[] {"", "zk1", "zk1:", "zk1:2181,", "embeded", ":2181"}) {
            assertThatThrownBy(() -> LocalCoordination.parse(wrong, 2181, "default")).as("'%s'", wrong)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected: embedded, none, or host:port");
        }
        assertThatThrownBy(() -> LocalCoordination.embedded(70000, "default"))
                .hasMessageContaining("embeddedPort: 70000 (expected: 0-65535)");
    }
}
