package io.hedgerow.root;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A link that is slow for some of its clients: passes bytes between its clients and the server on
 * {@code port}, those of a connection accepted while {@link #slow} is set each {@code delayMillis}
 * late (in order), as over a longer route; the others at once. Two clients that share one address
 * (one replica's, as the coordination store names it) then see it at different distances.
 */
public final class DelayRelay implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final int serverPort;
    private final long delayMillis;
    /** One thread for every delayed byte: a schedule at one delay keeps each connection's order. */
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    private volatile boolean slow;

    public DelayRelay(int serverPort, long delayMillis) throws IOException {
        this.serverPort = serverPort;
        this.delayMillis = delayMillis;
        Thread.ofVirtual().start(this::accept);
    }

    /** {@code 127.0.0.1:port}: the relay's address, to dial instead of the server's. */
    public String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** Whether connections accepted from now on are slow. */
    public void slow(boolean value) {
        slow = value;
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket far = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                boolean delayed = slow;
                Thread.ofVirtual().start(() -> pump(client, far, delayed));
                Thread.ofVirtual().start(() -> pump(far, client, delayed));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void pump(Socket from, Socket to, boolean delayed) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                byte[] chunk = Arrays.copyOf(buffer, n);
                if (delayed) {
                    later.schedule(() -> write(out, chunk), delayMillis, TimeUnit.MILLISECONDS);
                } else {
                    write(out, chunk);
                }
            }
        } catch (IOException e) {
            // either side closed
        }
    }

    private static void write(OutputStream out, byte[] chunk) {
        try {
            out.write(chunk);
            out.flush();
        } catch (IOException e) {
            // the other side closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        later.shutdownNow();
    }
}
