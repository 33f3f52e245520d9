package io.hedgerow.common.net;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Netty's {@link SslContext}s from PEM files: a server's (the HTTP API's, a leaf's) and a client's;
 * and the JDK's {@link SSLContext} of a client, for blocking sockets.
 */
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

    /**
     * A JDK client context that trusts the PEM certificates in {@code trusted} (and no others), for a
     * blocking {@link javax.net.ssl.SSLSocket}; the caller turns on hostname checks.
     */
    public static SSLContext jdkClient(Path trusted) throws IOException {
        try (InputStream in = Files.newInputStream(trusted)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("trusted-" + n++, certificate);
            }
            if (n == 0) {
                throw new IOException("no certificate in " + trusted + " (expected: a PEM file of certificates)");
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot trust the TLS certificates in " + trusted + " (expected: a PEM file of"
                    + " certificates): " + e.getMessage(), e);
        }
    }

    /**
     * A JDK client context that trusts exactly the first certificate in {@code certificateChain},
     * whatever name it is reached by: a server that calls itself (the root's warm-up through its own
     * HTTPS port, by a loopback address its certificate may not name) pins its own certificate.
     */
    public static SSLContext pinned(Path certificateChain) throws IOException {
        Certificate own;
        try (InputStream in = Files.newInputStream(certificateChain)) {
            own = CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the certificate " + certificateChain + ": " + e.getMessage(), e);
        }
        X509TrustManager exactly = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("a pinned client context trusts no clients");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                if (chain == null || chain.length == 0 || !chain[0].equals(own)) {
                    throw new CertificateException("not the pinned certificate of " + certificateChain);
                }
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {exactly}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot make a TLS context: " + e.getMessage(), e);
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
