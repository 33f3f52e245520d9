package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/** A test's end of a connection to a leaf, speaking the wire: a 4-byte big-endian length, then a Frame. */
record FrameSocket(DataInputStream in, DataOutputStream out) {
    /** The root id tests introduce themselves with, unless they play two roots. */
    static final long ROOT_ID = 0x7E57_0001L;

    static FrameSocket over(Socket socket) throws IOException {
        return new FrameSocket(new DataInputStream(socket.getInputStream()), new DataOutputStream(socket.getOutputStream()));
    }

    void send(Frame frame) throws IOException {
        byte[] bytes = frame.toByteArray();
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    /** Opens the connection as root {@code rootId} would, and returns the leaf's answer. */
    HelloAck hello(long rootId) throws IOException {
        send(Protocol.rootHello(rootId));
        Frame answer = receive();
        if (answer.getBodyCase() != Frame.BodyCase.HELLO_ACK) {
            throw new IOException("expected a HelloAck, got " + answer.getBodyCase());
        }
        return answer.getHelloAck();
    }

    /** Opens the connection as another leaf does to send twin cancels, and returns the leaf's answer. */
    HelloAck helloForTwinCancels() throws IOException {
        send(Protocol.twinCancelsHello(null));
        return receive().getHelloAck();
    }

    Frame receive() throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return Frame.parseFrom(bytes);
    }
}
