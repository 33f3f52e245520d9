package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/** A test's end of a connection to a leaf, speaking the wire: a 4-byte big-endian length, then a Frame. */
record FrameSocket(DataInputStream in, DataOutputStream out) {

    static FrameSocket over(Socket socket) throws IOException {
        return new FrameSocket(new DataInputStream(socket.getInputStream()), new DataOutputStream(socket.getOutputStream()));
    }

    void send(Frame frame) throws IOException {
        byte[] bytes = frame.toByteArray();
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    Frame receive() throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return Frame.parseFrom(bytes);
    }
}
