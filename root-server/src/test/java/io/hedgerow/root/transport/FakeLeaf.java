package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.Frame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A leaf written by hand for the root's handshake and write tests: it accepts any number of
 * connections and answers each frame a root sends as the test's script says (or closes the
 * connection when the script answers null), counting the frames of each kind it saw.
 */
public final class FakeLeaf implements AutoCloseable {
    /** What to answer to one frame: a frame, or null to close the connection. */
    public interface Script {
        Frame answer(Frame received);
    }

    private final ServerSocket server;
    private final Script script;
    private final List<Socket> connections = new ArrayList<>();
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    private final AtomicInteger searches = new AtomicInteger();
    private final Thread acceptor;

    public FakeLeaf(Script script) throws IOException {
        this.server = new ServerSocket(0);
        this.script = script;
        this.acceptor = new Thread(this::accept, "fake-leaf-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    public int connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** Searches and fetches that reached this leaf. */
    public int searches() {
        return searches.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                synchronized (connections) {
                    connections.add(socket);
                }
                connectionsAccepted.incrementAndGet();
                Thread serving = new Thread(() -> serve(socket), "fake-leaf-connection");
                serving.setDaemon(true);
                serving.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            while (true) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                Frame received = Frame.parseFrom(bytes);
                if (received.hasSearch() || received.hasFetch()) {
                    searches.incrementAndGet();
                }
                Frame answer = script.answer(received);
                if (answer == null) {
                    return;
                }
                byte[] reply = answer.toByteArray();
                out.writeInt(reply.length);
                out.write(reply);
                out.flush();
            }
        } catch (IOException e) {
            // the root closed the connection, or the test ended
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (connections) {
            for (Socket socket : connections) {
                socket.close();
            }
        }
    }
}
