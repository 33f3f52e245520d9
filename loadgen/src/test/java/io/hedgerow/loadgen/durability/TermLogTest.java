package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.leaf.write.LiveWrites;
import io.hedgerow.loadgen.durability.DocumentClient.Presence;
import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import io.hedgerow.root.local.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TermLogTest {
    @TempDir
    Path run;

    @Test
    void saysItCheckedNothingWithoutATermLog() throws Exception {
        TermLog terms = TermLog.read(run);

        assertThat(terms.active()).isFalse();
        assertThat(terms.describe()).isEqualTo("split terms 0 (no term log: checked nothing)");
    }

    @Test
    void findsATermWithTwoPrimariesAcrossLeavesLogs() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), """
                # time partition term node
                2026-11-28T06:00:00.100Z 3 6 leaf-0
                2026-11-28T06:00:05.200Z 3 7 leaf-0
                2026-11-28T06:00:05.300Z 4 7 leaf-0
                """);
        Files.writeString(run.resolve("terms/leaf-1.log"), """
                2026-11-28T06:00:05.250Z 3 7 leaf-1
                2026-11-28T06:00:09.000Z 3 8 leaf-1
                """);

        TermLog terms = TermLog.read(run);

        assertThat(terms.active()).isTrue();
        assertThat(terms.changes()).isEqualTo(5);
        assertThat(terms.splitTerms()).containsExactly("partition 3 term 7: leaf-0, leaf-1");
        assertThat(terms.describe()).isEqualTo("split terms 1");
    }

    @Test
    void aCleanLogChecksToZero() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), "2026-11-28T06:00:00Z 0 1 leaf-0\n2026-11-28T06:00:01Z 0 2 leaf-1\n");

        assertThat(TermLog.read(run).describe()).isEqualTo("split terms 0");
    }

    /**
     * The leaves' own term logs ({@code leaf --term-log}, where {@code local --zk} puts them): two
     * leaves that accept one term with the same primary check clean; one told of another primary in
     * that term (a second root, or a zombie one, with its own idea of the partition) fails the run.
     */
    @Test
    void twoLeavesToldOfDifferentPrimariesForOneTermFailTheVerdict() throws Exception {
        PartitionStore store = new PartitionStore(run.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, "terms", IndexConfig.defaults(), List.of(new SourceDocument("d", Map.of("title", "d"), 1)));
        IndexContext index = IndexContext.of(store, store.readManifest());
        RunDirectory dir = new RunDirectory(run.resolve("run"));
        History history = History.of(List.of(Op.invoke(0, Kind.ADD, "a", 1), Op.complete(0, Type.OK, Kind.ADD, "a", 2,
                "HTTP 201")));
        try (LiveWrites leaf0 = leaf(index, "0", dir); LiveWrites leaf1 = leaf(index, "1", dir)) {
            assertThat(write(leaf0, 2, "127.0.0.1_4000", true)).isEqualTo(Status.OK);
            assertThat(write(leaf1, 2, "127.0.0.1_4000", false)).isEqualTo(Status.OK);
            assertThat(write(leaf0, 2, "127.0.0.1_4000", true)).isEqualTo(Status.OK);

            TermLog agreed = TermLog.read(dir.dir());
            assertThat(agreed.active()).isTrue();
            assertThat(agreed.changes()).as("one line per leaf").isEqualTo(2);
            assertThat(SetChecker.check(history, Map.of("a", Presence.PRESENT), agreed).valid()).isTrue();

            assertThat(write(leaf1, 2, "127.0.0.1_4001", true)).as("another root's primary, same term")
                    .isEqualTo(Status.OK);
        }

        TermLog split = TermLog.read(dir.dir());
        SetChecker.Verdict verdict = SetChecker.check(history, Map.of("a", Presence.PRESENT), split);
        assertThat(split.splitTerms()).containsExactly("partition 0 term 2: 127.0.0.1_4000, 127.0.0.1_4001");
        assertThat(verdict.valid()).isFalse();
        assertThat(verdict.finalLine()).isEqualTo("acknowledged 1, lost 0, resurrected 0, split terms 1");
    }

    private static LiveWrites leaf(IndexContext index, String node, RunDirectory dir) {
        LiveWrites writes = new LiveWrites(index, LiveSettings.defaults().withNodeId(node)
                .withTermLog(dir.termLogFile("leaf-" + node)), (partition, searcher) -> { }, partition -> partition == 0);
        writes.start(index.store().liveDir().resolve(index.manifest().build()), 0);
        return writes;
    }

    private static Status write(LiveWrites leaf, long term, String primary, boolean asPrimary) {
        WriteOp.Builder op = WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("w")
                .addFields(StoredField.newBuilder().setName("title").setValue("w"));
        return leaf.answer(WriteRequest.newBuilder().setPartition(0).setPrimary(asPrimary).setPrimaryTerm(term)
                .setPrimaryNode(primary).addOps(asPrimary ? op : op.setSeq(1)).build()).getStatus();
    }

    @Test
    void refusesALineItCannotRead() throws Exception {
        Files.createDirectories(run.resolve("terms"));
        Files.writeString(run.resolve("terms/leaf-0.log"), "2026-11-28T06:00:00Z 0 leaf-0\n");

        assertThatThrownBy(() -> TermLog.read(run))
                .hasMessage("leaf-0.log: '2026-11-28T06:00:00Z 0 leaf-0' (expected: TIME PARTITION TERM NODE)");
    }
}
