package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.Closeable;
import java.io.IOException;

/**
 * How a recovering copy reaches the leaf whose snapshot it copies (peer recovery): a session is one
 * connection, on which the source keeps every snapshot listed on it until it closes. The leaf's
 * implementation dials the source over the leaf protocol; tests may answer in the JVM.
 *
 * <p><b>Assumptions and guarantees.</b> {@link Session#call} blocks its caller until the answer
 * comes or the session fails: it is called on the leaf's recovery thread, never on an event loop.
 */
public interface PeerFiles {
    /** For a leaf started without a network: every restore fails, saying so. */
    PeerFiles NONE = address -> {
        throw new IOException("this leaf cannot reach other leaves (expected: a leaf server's peer links)");
    };

    /**
     * Connects to the leaf at {@code address} ({@code host:port}).
     *
     * @throws IOException when it cannot be reached or refuses the connection
     */
    Session open(String address) throws IOException;

    /** One connection to a source leaf. */
    interface Session extends Closeable {
        /**
         * Sends {@code request} (LIST_SNAPSHOT or READ_SNAPSHOT_FILE) and waits for its answer.
         *
         * @throws IOException when the connection fails or the answer does not come in time
         */
        WriteResponse call(WriteRequest request) throws IOException;

        @Override
        void close();
    }
}
