package io.hedgerow.cli;

import java.util.concurrent.CountDownLatch;

/** Runs a foreground server until the JVM is asked to exit (Ctrl-C, SIGTERM). */
final class Shutdown {
    private Shutdown() {
    }

    /** Closes {@code server} when the JVM exits; the latch opens once it is closed. */
    static CountDownLatch closeOnExit(AutoCloseable server) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, "hedgerow-shutdown"));
        return stopped;
    }
}
