package io.hedgerow.root;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.Semaphore;

/**
 * A link a test can cut without closing it: passes bytes between its clients and the server on
 * {@code port} until {@link #stop()}; from then on it takes what either side sends and passes
 * nothing on, releasing a permit of {@link #arrivals} for each read from a client. Connections stay
 * open, as over a cut cable or to a paused process; new ones are still accepted, and stay as
 * silent.
 */
public final class LinkRelay implements AutoCloseable {
    /** A permit per read from a client after {@link #stop()}. */
    public final Semaphore arrivals = new Semaphore(0);
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final int serverPort;
    private volatile boolean stopped;
    private volatile boolean answersStopped;
    /** Connections from this one on (by order of accept) have their server's first answer held. */
    private volatile int holdFrom = Integer.MAX_VALUE;
    /**
     * Counted down when the first answer is held ({@link #holdFirstAnswers}): one-shot, so it says
     * nothing of the answers held on later connections.
     */
    public final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();

    public LinkRelay(int serverPort) throws IOException {
        this.serverPort = serverPort;
        Thread.ofVirtual().start(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code 127.0.0.1:port}: the relay's address, to dial instead of the server's. */
    public String address() {
        return "127.0.0.1:" + port();
    }

    /** Connections its clients opened so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Cuts the link: nothing passes either way from now on. */
    public void stop() {
        stopped = true;
    }

    /** Cuts the way back only: what clients send still reaches the server, its answers are dropped. */
    public void stopAnswers() {
        answersStopped = true;
    }

    /**
     * Holds the server's first answer on every connection accepted from the {@code first}-th on
     * (0-based), until {@link #release()}; {@link #held} counts down when the first is held. A test
     * that never releases them has the held connections closed after {@link #HOLD_LIMIT_SECONDS}
     * seconds, so it fails instead of getting its answers late.
     */
    public void holdFirstAnswers(int first) {
        holdFrom = first;
    }

    /** Lets held answers go on. */
    public void release() {
        released.countDown();
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                boolean hold = accepted.getAndIncrement() >= holdFrom;
                Socket far = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                Thread.ofVirtual().start(() -> pump(client, far, true, false));
                Thread.ofVirtual().start(() -> pump(far, client, false, hold));
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** How long an answer is held at most before its connection is closed. */
    public static final long HOLD_LIMIT_SECONDS = 60;

    private void pump(Socket from, Socket to, boolean fromClient, boolean holdFirst) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                if (holdFirst) {
                    held.countDown();
                    if (!released.await(HOLD_LIMIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                        // Never released: fail the connection loudly rather than answer a minute late.
                        from.close();
                        to.close();
                        return;
                    }
                    holdFirst = false;
                }
                if (stopped || (!fromClient && answersStopped)) {
                    if (fromClient) {
                        arrivals.release();
                    }
                    continue;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        released.countDown();
        server.close();
    }
}
