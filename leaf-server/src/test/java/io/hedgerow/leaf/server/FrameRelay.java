package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.WriteRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * A leaf-to-leaf link a test can see into and tamper with: passes frames between the leaves that
 * dial {@link #address()} and the leaf on {@code port}, recording the write requests they send, and
 * hands each frame coming back to {@code answers}, which may change it, or return null to cut the
 * connection (both sockets closed) instead of passing it on. Plain wire only (no TLS).
 */
final class FrameRelay implements AutoCloseable {
    /** The write requests the dialling leaves sent, in order. */
    final List<WriteRequest> requests = new CopyOnWriteArrayList<>();
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final int port;
    private final UnaryOperator<Frame> answers;

    FrameRelay(int port, UnaryOperator<Frame> answers) throws IOException {
        this.port = port;
        this.answers = answers;
        Thread.ofVirtual().start(this::accept);
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket far = new Socket(InetAddress.getLoopbackAddress(), port);
                Thread.ofVirtual().start(() -> pump(client, far, frame -> {
                    if (frame.hasWrite()) {
                        requests.add(frame.getWrite());
                    }
                    return frame;
                }));
                Thread.ofVirtual().start(() -> pump(far, client, answers));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private static void pump(Socket from, Socket to, UnaryOperator<Frame> change) {
        try (DataInputStream in = new DataInputStream(from.getInputStream());
                DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
            while (true) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                Frame frame = change.apply(Frame.parseFrom(bytes));
                if (frame == null) {
                    break;
                }
                byte[] passed = frame.toByteArray();
                out.writeInt(passed.length);
                out.write(passed);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
