package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PartitionStateCodecTest {
    private final PartitionStateCodec codec = new PartitionStateCodec();
    private final PartitionState state = new PartitionState(3, 2, NodeId.of("leaf-1"),
            Set.of(NodeId.of("leaf-2"), NodeId.of("leaf-1")), PartitionState.UNSTORED);

    @Test
    void writesReadableJsonAndReadsItBackAtTheZnodesVersion() throws Exception {
        byte[] bytes = codec.encode(state);

        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(
                "{\"format\":1,\"partition\":3,\"primaryTerm\":2,\"primary\":\"leaf-1\",\"inSync\":[\"leaf-1\",\"leaf-2\"]}");
        assertThat(codec.decode(3, bytes, 5)).isEqualTo(state.withVersion(5));
    }

    @Test
    void readsPastFieldsALaterVersionAdds() throws Exception {
        byte[] bytes = ("{\"format\":1,\"partition\":3,\"primaryTerm\":2,\"primary\":\"leaf-1\",\"inSync\":[\"leaf-1\"],"
                + "\"target\":[\"leaf-9\"]}").getBytes(StandardCharsets.UTF_8);

        assertThat(codec.decode(3, bytes, 0).primary()).isEqualTo(NodeId.of("leaf-1"));
    }

    @Test
    void refusesAStateStoredUnderAnotherPartitionsNameOrUnreadableBytes() {
        assertThatThrownBy(() -> codec.decode(4, codec.encode(state), 0))
                .isInstanceOf(CoordinationException.class)
                .hasMessageContaining("partition: 3 (expected: 4, the znode's name)");
        assertThatThrownBy(() -> codec.decode(3, "not json".getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(CoordinationException.class)
                .hasMessageStartingWith("partition 3: unreadable state at version 0");
        byte[] primaryOutOfSync = "{\"format\":1,\"partition\":3,\"primaryTerm\":2,\"primary\":\"leaf-1\",\"inSync\":[]}"
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> codec.decode(3, primaryOutOfSync, 0)).isInstanceOf(CoordinationException.class);
    }
}
