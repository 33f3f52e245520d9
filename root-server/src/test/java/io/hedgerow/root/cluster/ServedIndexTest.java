package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchException;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.search.BadQueryException;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which leaves' indexes a root accepts, and the parser it gets from the index. Pure: identities in, verdicts out. */
class ServedIndexTest {

    private static IndexManifest manifest(String name, int partitions, String createdAt) {
        return new IndexManifest(IndexManifest.FORMAT, name, partitions, IndexConfig.defaults(), List.of("title", "body"),
                1, 10L * partitions, Collections.nCopies(partitions, 10L), createdAt);
    }

    private static final IndexManifest BUILD_A = manifest("docs", 16, "2026-11-01T10:00:00Z");
    private static final IndexManifest BUILD_B = manifest("docs", 16, "2026-11-02T10:00:00Z");

    @Test
    void refusesALeafWithAnotherPartitionCountNamingBothNumbers() {
        ServedIndex served = new ServedIndex("docs", 8, null);
        String refusal = served.admit("10.0.0.1:9001", IndexIdentities.of(BUILD_A));
        assertThat(refusal).contains("leaf 10.0.0.1:9001", "with 16 partitions", "configured for 8");
        assertThat(served.manifest()).as("a refused leaf teaches nothing").isNull();
    }

    @Test
    void refusesALeafOfAnotherIndexNamingBoth() {
        ServedIndex served = new ServedIndex("other", 16, null);
        assertThat(served.admit("10.0.0.1:9001", IndexIdentities.of(BUILD_A))).contains("serves index 'docs'",
                "this root serves 'other'");
    }

    @Test
    void theFirstLeafPinsTheIndexAndAnotherBuildIsRefused() throws BadQueryException {
        ServedIndex served = new ServedIndex("docs", 16, null);
        assertThatThrownBy(() -> served.parse("vote")).isInstanceOfSatisfying(SearchException.class,
                e -> assertThat(e.kind()).isEqualTo(SearchException.Kind.UNAVAILABLE));

        assertThat(served.admit("10.0.0.1:9001", IndexIdentities.of(BUILD_A))).isNull();
        assertThat(served.manifest()).isEqualTo(BUILD_A);
        assertThat(served.parse("Vote").toString()).isEqualTo("title:vote body:vote");
        assertThat(served.admit("10.0.0.2:9001", IndexIdentities.of(BUILD_A))).as("a copy of the same build").isNull();

        String refusal = served.admit("10.0.0.3:9001", IndexIdentities.of(BUILD_B));
        assertThat(refusal).contains("leaf 10.0.0.3:9001 serves another build of index 'docs'",
                IndexIdentities.of(BUILD_B).getManifestSha256().substring(0, 12),
                IndexIdentities.of(BUILD_A).getManifestSha256().substring(0, 12), "leaf 10.0.0.1:9001, the first to answer");
    }

    @Test
    void aConfiguredIndexIsTheOnlyOneAccepted() {
        ServedIndex served = new ServedIndex("docs", 16, BUILD_B);
        assertThat(served.admit("10.0.0.1:9001", IndexIdentities.of(BUILD_A)))
                .contains("another build", "the index files this root was started with");
        assertThat(served.admit("10.0.0.2:9001", IndexIdentities.of(BUILD_B))).isNull();
    }

    @Test
    void refusesAnIdentityWhoseManifestDoesNotMatchItsHash() {
        ServedIndex served = new ServedIndex("docs", 16, null);
        IndexIdentity forged = IndexIdentities.of(BUILD_A).toBuilder()
                .setManifestSha256(IndexIdentities.of(BUILD_B).getManifestSha256()).build();
        assertThat(served.admit("10.0.0.1:9001", forged)).contains("does not hold together", "manifest_sha256");
        assertThat(served.manifest()).isNull();
    }

    @Test
    void parsesAsTheLeavesDoWithOnlyLucenesOwnLimit() throws BadQueryException {
        ServedIndex served = new ServedIndex("docs", 16, BUILD_A);
        assertThat(served.parse("*ment")).as("leading wildcards are the leaves' to refuse").isNotNull();
        assertThatThrownBy(() -> served.parse("title:(foo")).isInstanceOf(BadQueryException.class)
                .hasMessageContaining("Cannot parse");
    }
}
