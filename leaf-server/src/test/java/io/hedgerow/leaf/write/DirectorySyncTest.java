package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file or directory is not durable until the directory holding its name is synced: every one a
 * live copy makes (its directories, its log, its checkpoint) is followed by that sync, before
 * anything in it is acknowledged.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DirectorySyncTest {
    @TempDir
    Path dir;

    /** The real file system, recording what is opened, moved and synced, in order. */
    private static final class Recording implements WalFiles {
        final List<String> events = new ArrayList<>();

        @Override
        public FileChannel open(Path file, OpenOption... options) throws IOException {
            events.add("open " + file.getFileName());
            return SYSTEM.open(file, options);
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            events.add("move " + from.getFileName() + " " + to.getFileName());
            SYSTEM.move(from, to);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            events.add("sync " + dir.getFileName());
            SYSTEM.syncDirectory(dir);
        }
    }

    @Test
    void makingDirectoriesSyncsTheDirectoryHoldingEachNewOne() throws IOException {
        Recording files = new Recording();
        LiveCopies.createDirectories(dir.resolve("a/b/c"), files);
        assertThat(Files.isDirectory(dir.resolve("a/b/c"))).isTrue();
        assertThat(files.events).containsExactly("sync " + dir.getFileName(), "sync a", "sync b");
    }

    @Test
    void aCopySyncsItsLinksThenTheDirectoryItIsRenamedInto() throws IOException {
        Path source = Files.createDirectories(dir.resolve("build"));
        Files.writeString(source.resolve("_0.cfs"), "segment");
        Recording files = new Recording();
        LiveCopies.linkOrCopy(source, dir.resolve("partition-0000"), dir.resolve("partition-0000/index"), files);
        assertThat(files.events).containsExactly("sync " + dir.getFileName(), "sync index.tmp", "sync partition-0000");
        assertThat(dir.resolve("partition-0000/index/_0.cfs")).hasContent("segment");
    }

    @Test
    void aNewLogSyncsItsDirectoryBeforeItsFirstCheckpointWhichIsRenamedInThenRewrittenInPlace() throws IOException {
        Recording files = new Recording();
        try (WriteLog log = WriteLog.open(files, dir.resolve("wal.log"), new ArrayList<>())) {
            String here = dir.getFileName().toString();
            assertThat(files.events).containsExactly("open wal.log", "sync " + here, "open wal.log.checkpoint",
                    "open wal.log.checkpoint.tmp", "move wal.log.checkpoint.tmp wal.log.checkpoint", "sync " + here);

            files.events.clear();
            log.append(List.of(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("a").setSeq(1).build()));
            log.sync();
            assertThat(files.events).as("its name is durable already: no rename, no directory sync")
                    .containsExactly("open wal.log.checkpoint");

            files.events.clear();
            log.append(List.of(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("b").setSeq(2).build()));
            log.sync();
            assertThat(files.events).as("rewritten through the channel kept open: no file opened per sync").isEmpty();
        }
        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog reopened = WriteLog.open(dir.resolve("wal.log"), replayed)) {
            assertThat(replayed).as("the checkpoint written in place covers both").extracting(WriteOp::getId)
                    .containsExactly("a", "b");
        }
    }
}
