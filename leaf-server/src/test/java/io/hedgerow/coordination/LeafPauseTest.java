package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session timeout against the pause scenario, on the embedded server local clusters use: a leaf
 * process stopped for 150 ms every second keeps its session and its membership; the same leaf killed
 * leaves the membership on its own, once its session expires. (Seen failing with a 200 ms session
 * timeout on a server ticking every 50 ms: the pauses expired the session.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeafPauseTest {
    private static final NodeId LEAF = NodeId.of("leaf-paused");
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int PAUSES = 8;
    private static final long PAUSE_MS = 150;
    private static final long PERIOD_MS = 1000;

    @TempDir
    Path dataDir;

    @Test
    void aLeafPausedFor150MsEverySecondKeepsItsSessionAndAKilledOneLeaves() throws Exception {
        try (EmbeddedZooKeeper server = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, dataDir));
                CoordinationClient root = CoordinationClient.connect(
                        CoordinationSettings.of(server.connectString(), "pauses"))) {
            AtomicInteger departures = new AtomicInteger();
            CountDownLatch joined = new CountDownLatch(1);
            CountDownLatch left = new CountDownLatch(1);
            Membership membership = new Membership(root);
            membership.addListener(new MembershipListener() {
                @Override
                public void joined(NodeId node, String address) {
                    if (node.equals(LEAF)) {
                        joined.countDown();
                    }
                }

                @Override
                public void left(NodeId node) {
                    if (node.equals(LEAF)) {
                        departures.incrementAndGet();
                        left.countDown();
                    }
                }
            });
            membership.start();

            Process leaf = startLeaf(server.connectString(),
                    CoordinationSettings.DEFAULT_SESSION_TIMEOUT.toMillis());
            List<String> leafSaid = new CopyOnWriteArrayList<>();
            CountDownLatch registered = new CountDownLatch(1);
            Thread reader = readLines(leaf, line -> {
                if (line.startsWith("state ") || line.startsWith("registered ")) { // not its log lines
                    leafSaid.add(line);
                }
                if (line.startsWith("registered ")) {
                    registered.countDown();
                }
            });
            try {
                assertThat(registered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("leaf registered: %s", leafSaid)
                        .isTrue();
                assertThat(joined.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

                pauseRepeatedly(leaf.pid());

                assertThat(departures.get()).as("departures heard while the leaf was paused 150 ms a second").isZero();
                assertThat(membership.liveLeaves()).containsKey(LEAF);
                assertThat(leafSaid).as("the leaf's connection states").noneMatch(line -> line.contains("LOST"));

                leaf.destroyForcibly(); // SIGKILL: no goodbye, the session has to expire
                long killedAt = System.nanoTime();

                assertThat(left.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the dead leaf left").isTrue();
                System.out.printf("killed leaf left the membership after %d ms; the leaf said %s%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt), leafSaid);
            } finally {
                leaf.destroyForcibly();
                leaf.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                reader.join(PATIENCE.toMillis());
            }
        }
    }

    private static Process startLeaf(String connectString, long sessionTimeoutMs) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                PausableLeaf.class.getName(), connectString, "pauses", LEAF.value(), Long.toString(sessionTimeoutMs))
                .redirectErrorStream(true)
                .start();
    }

    /** SIGSTOPs {@code pid} for 150 ms at the start of each second, {@link #PAUSES} times; returns after the last. */
    private static void pauseRepeatedly(long pid) throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch done = new CountDownLatch(PAUSES);
        try {
            timer.scheduleAtFixedRate(() -> {
                if (done.getCount() == 0) {
                    return;
                }
                signal("STOP", pid);
                timer.schedule(() -> {
                    signal("CONT", pid);
                    done.countDown();
                }, PAUSE_MS, TimeUnit.MILLISECONDS);
            }, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
            assertThat(done.await(PAUSES * PERIOD_MS + PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        } finally {
            timer.shutdownNow();
            signal("CONT", pid); // never leave it stopped
        }
    }

    private static void signal(String signal, long pid) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread readLines(Process process, java.util.function.Consumer<String> onLine) {
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    onLine.accept(line);
                }
            } catch (IOException e) {
                // the process died: its output ends
            }
        }, "pausable-leaf-output");
        reader.start();
        return reader;
    }
}
