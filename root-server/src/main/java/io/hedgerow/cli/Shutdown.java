package io.hedgerow.cli;

import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/** Runs a foreground server until the JVM is asked to exit (Ctrl-C, SIGTERM). */
final class Shutdown {
    private Shutdown() {
    }

    /**
     * Closes {@code server} when the JVM exits, then prints what its stop did ({@code report}, when
     * not null) to standard output: printed as well as logged, because scripts read standard output
     * and the log goes to standard error (and java.util.logging's bridge may have been reset before
     * this hook runs). The latch opens once it is closed.
     */
    static CountDownLatch closeOnExit(AutoCloseable server, Supplier<String> report) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
                String said = report.get();
                if (said != null) {
                    System.out.println(said);
                    System.out.flush();
                }
            } catch (Exception e) {
                System.err.println("error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, "hedgerow-shutdown"));
        return stopped;
    }
}
