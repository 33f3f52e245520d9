package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.leaf.search.IndexContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf's term log ({@code --term-log}): a line for each (term, primary) a copy is told of anew,
 * none for a write of a term and primary already logged, nor for a term refused as stale.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TermChangeLogTest {
    @TempDir
    Path dir;

    @Test
    void logsEachNewTermAndPrimaryTheLeafAcceptsAndNothingWhileTheyStay() throws Exception {
        IndexContext index = BuiltIndex.build(dir, "terms", 3);
        Path file = dir.resolve("run/terms/leaf-0.log");
        try (LiveWrites writes = new LiveWrites(index, LiveSettings.defaults().withNodeId("0").withTermLog(file),
                (partition, searcher) -> { }, partition -> partition == 0)) {
            writes.start(BuiltIndex.liveDir(index), 0);

            assertThat(write(writes, 3, "10.0.0.1_4000", "a")).isEqualTo(Status.OK);
            assertThat(write(writes, 3, "10.0.0.1_4000", "b")).isEqualTo(Status.OK);
            assertThat(write(writes, 3, "10.0.0.1_4000", "c")).isEqualTo(Status.OK);
            assertThat(fields(file)).as("one term, one primary: one line").containsExactly("0 3 10.0.0.1_4000");

            assertThat(write(writes, 4, "10.0.0.2_4001", "d")).isEqualTo(Status.OK);
            assertThat(write(writes, 4, "10.0.0.2_4001", "e")).isEqualTo(Status.OK);
            assertThat(write(writes, 3, "10.0.0.1_4000", "f")).as("a deposed term").isEqualTo(Status.STALE_TERM);
            assertThat(write(writes, 4, "10.0.0.3_4002", "g")).as("another primary named in term 4")
                    .isEqualTo(Status.OK);
            assertThat(write(writes, 0, "", "h")).as("no term: not checked, not logged").isEqualTo(Status.OK);

            assertThat(fields(file)).containsExactly("0 3 10.0.0.1_4000", "0 4 10.0.0.2_4001", "0 4 10.0.0.3_4002");
        }
        assertThat(Files.readAllLines(file)).first().as("a header the checker skips").asString().startsWith("#");
    }

    @Test
    void writesTheTimeOfEachChangeAndAppendsAfterARestart() throws Exception {
        Path file = dir.resolve("terms/leaf-1.log");
        Clock clock = Clock.fixed(Instant.parse("2026-11-28T06:41:07.512Z"), ZoneOffset.UTC);
        try (TermChangeLog log = TermChangeLog.open(file, clock)) {
            log.told(5, 7, "leaf-a");
            log.told(5, 7, "leaf-a");
        }
        try (TermChangeLog log = TermChangeLog.open(file, clock)) {
            log.told(5, 7, "leaf-a"); // a restarted leaf logs what it is told again: the same primary, no split
        }

        assertThat(Files.readAllLines(file)).containsExactly("# time partition term primary",
                "2026-11-28T06:41:07.512Z 5 7 leaf-a", "2026-11-28T06:41:07.512Z 5 7 leaf-a");
    }

    private static Status write(LiveWrites writes, long term, String primary, String id) {
        WriteRequest request = WriteRequest.newBuilder().setPartition(0).setPrimary(true).setPrimaryTerm(term)
                .setPrimaryNode(primary)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                        .addFields(StoredField.newBuilder().setName("title").setValue("term " + term)))
                .build();
        return writes.answer(request).getStatus();
    }

    /** The log's lines without the header and without their time (checked to be an instant). */
    private static List<String> fields(Path file) throws Exception {
        return Files.readAllLines(file).stream().filter(line -> !line.startsWith("#")).map(line -> {
            int space = line.indexOf(' ');
            Instant.parse(line.substring(0, space));
            return line.substring(space + 1);
        }).toList();
    }
}
