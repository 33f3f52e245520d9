package io.hedgerow.root.http;

import io.hedgerow.common.net.TlsFiles;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import javax.net.ssl.SSLException;

/** Netty's {@link SslContext} for the HTTP API, from a server's PEM files. */
final class TlsContexts {
    private TlsContexts() {
    }

    /** A server context: serves {@code files}' certificate chain, proves it with their key. */
    static SslContext server(TlsFiles files) throws IOException {
        try {
            return SslContextBuilder.forServer(files.certificateChain().toFile(), files.privateKey().toFile()).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("cannot use the TLS certificate " + files.certificateChain() + " with the key "
                    + files.privateKey() + " (expected: PEM files, the key in PKCS#8): " + e.getMessage(), e);
        }
    }
}
