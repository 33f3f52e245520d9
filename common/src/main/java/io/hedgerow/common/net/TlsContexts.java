package io.hedgerow.common.net;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/** Netty's {@link SslContext}s from PEM files: a server's (the HTTP API's, a leaf's) and a client's. */
public final class TlsContexts {
    private TlsContexts() {
    }

    /** A server context: serves {@code files}' certificate chain, proves it with their key. */
    public static SslContext server(TlsFiles files) throws IOException {
        try {
            return SslContextBuilder.forServer(files.certificateChain().toFile(), files.privateKey().toFile()).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("cannot use the TLS certificate " + files.certificateChain() + " with the key "
                    + files.privateKey() + " (expected: PEM files, the key in PKCS#8): " + e.getMessage(), e);
        }
    }

    /** A client context that trusts the PEM certificates in {@code trusted} (and no others). */
    public static SslContext client(Path trusted) throws IOException {
        try {
            return SslContextBuilder.forClient().trustManager(trusted.toFile()).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("cannot trust the TLS certificates in " + trusted + " (expected: a PEM file of"
                    + " certificates): " + e.getMessage(), e);
        }
    }
}
