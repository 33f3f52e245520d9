package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a seq's digest covers: what the op writes (kind, id, fields, seq), never the primary-only
 * checks (expected version, create-only), which a copy of the op may carry or not; the same with a
 * copy's own reused {@link java.security.MessageDigest} as with a fresh one.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SeqDigestsTest {
    private static WriteOp op(String id, String title, long seq) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id).setSeq(seq)
                .addFields(StoredField.newBuilder().setName("title").setValue(title)).build();
    }

    @Test
    void theDigestIgnoresThePrimarysChecksAndSeesWhatTheOpWrites() {
        SeqDigests digests = new SeqDigests();
        WriteOp plain = op("a", "first", 7);
        WriteOp checked = plain.toBuilder().setExpectedVersion(3).setCreateOnly(true).build();
        assertThat(digests.digest(checked)).as("expected version and create-only left out")
                .isEqualTo(digests.digest(plain)).isEqualTo(SeqDigests.of(plain)).isEqualTo(SeqDigests.of(checked));
        assertThat(digests.digest(op("a", "other", 7))).as("another field value").isNotEqualTo(digests.digest(plain));
        assertThat(digests.digest(op("a", "first", 8))).as("another seq").isNotEqualTo(digests.digest(plain));
        assertThat(digests.digest(plain.toBuilder().setKind(WriteKind.DELETE).build())).as("another kind")
                .isNotEqualTo(digests.digest(plain));
    }

    @Test
    void aHeldSeqMatchesItsOpWithOrWithoutThePrimarysChecksAndNoOther() {
        SeqDigests digests = new SeqDigests();
        digests.reset(6);
        digests.add(op("a", "first", 7).toBuilder().setExpectedVersion(2).build());
        assertThat(digests.holds(7)).isTrue();
        assertThat(digests.matches(op("a", "first", 7))).isTrue();
        assertThat(digests.matches(op("a", "first", 7).toBuilder().setCreateOnly(true).build())).isTrue();
        assertThat(digests.matches(op("b", "first", 7))).isFalse();
    }
}
