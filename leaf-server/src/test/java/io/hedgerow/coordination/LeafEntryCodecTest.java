package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeafEntryCodecTest {
    @Test
    void roundTripsAnEntryWithLoadAndAnIncarnationOfAll64Bits() {
        LeafEntry entry = new LeafEntry("10.0.0.2:9300", 0xF00D_0000_0000_0001L, Map.of(0, 12L, 7, 3_000_000_000L));

        byte[] bytes = LeafEntryCodec.encode(entry);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"address\":\"10.0.0.2:9300\"")
                .contains("\"served_nanos\":{\"0\":12,\"7\":3000000000}");
        assertThat(LeafEntryCodec.decode(bytes)).isEqualTo(entry);
    }

    @Test
    void readsTheBareAddressOfEarlierRegistrationsAsAnEntryWithoutLoad() {
        LeafEntry entry = LeafEntryCodec.decode("127.0.0.1:9301".getBytes(StandardCharsets.UTF_8));

        assertThat(entry.address()).isEqualTo("127.0.0.1:9301");
        assertThat(entry.publishesLoad()).isFalse();
    }

    @Test
    void refusesJsonThatIsNotAnEntry() {
        assertThatThrownBy(() -> LeafEntryCodec.decode("{\"format\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: an address");
    }
}
