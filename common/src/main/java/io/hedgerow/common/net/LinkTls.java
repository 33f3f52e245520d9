package io.hedgerow.common.net;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * TLS on the cluster's own links, with Netty's {@link SslContext}: root to leaf (searches,
 * assignments, writes) and leaf to leaf (tied requests' cancels). Off by default ({@link #NONE}:
 * plaintext). A leaf serves TLS with its certificate and key and dials its peers trusting the
 * cluster's certificates; a root dials its leaves trusting them. A client checks that the
 * certificate names the address it dialled (the HTTPS rule: an IP address or host name in the
 * certificate's subject alternative names), so a certificate of the cluster's CA issued for another
 * address is refused too.
 *
 * <p>A leaf that serves TLS closes a plaintext connection at its first bytes (they are no TLS
 * record), before any frame is read: the cluster secret's handshake and everything after it only
 * ever travel encrypted.
 *
 * <p><b>Assumptions and guarantees.</b> Immutable and thread-safe: the contexts are Netty's,
 * shared by every connection; each connection gets its own handler.
 */
public final class LinkTls {
    /** Plaintext links. */
    public static final LinkTls NONE = new LinkTls(null, null);

    private final SslContext server;
    private final SslContext client;

    private LinkTls(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /**
     * A leaf's: serves TLS with {@code files}' certificate and key, and dials its peers trusting
     * {@code files}' trusted certificates, or its own certificate when it names none (a cluster whose
     * leaves share one certificate). Null files: plaintext.
     */
    public static LinkTls serving(TlsFiles files) throws IOException {
        if (files == null) {
            return NONE;
        }
        Path trusted = files.trustedCertificates() != null ? files.trustedCertificates() : files.certificateChain();
        return new LinkTls(TlsContexts.server(files), TlsContexts.client(trusted));
    }

    /** A root's: dials its leaves over TLS, trusting the PEM certificates in {@code trusted}. Null: plaintext. */
    public static LinkTls dialing(Path trusted) throws IOException {
        return trusted == null ? NONE : new LinkTls(null, TlsContexts.client(trusted));
    }

    /** Whether connections this side dials use TLS. */
    public boolean dialsTls() {
        return client != null;
    }

    /** Puts TLS first on an accepted connection, when this side serves it. */
    public void accepted(Channel channel) {
        if (server != null) {
            channel.pipeline().addFirst("tls", server.newHandler(channel.alloc()));
        }
    }

    /** Puts TLS first on a connection this side dials to {@code host:port}, when it dials TLS. */
    public void dialled(Channel channel, String host, int port) {
        if (client == null) {
            return;
        }
        SslHandler handler = client.newHandler(channel.alloc(), host, port);
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(parameters);
        channel.pipeline().addFirst("tls", handler);
    }
}
