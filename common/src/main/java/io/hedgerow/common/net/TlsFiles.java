package io.hedgerow.common.net;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A server's TLS identity: its certificate chain and private key, both PEM files (the key in
 * PKCS#8, as {@code openssl genpkey} writes it), and optionally the certificates it trusts when it
 * dials others (its peers' CA; null: the JDK's default trust store).
 *
 * @param certificateChain PEM certificate chain, the server's own certificate first
 * @param privateKey       PEM PKCS#8 private key of that certificate
 * @param trustedCertificates PEM certificates to trust as a client (e.g. the cluster's CA); null for the JDK's
 */
public record TlsFiles(Path certificateChain, Path privateKey, Path trustedCertificates) {
    public TlsFiles {
        Objects.requireNonNull(certificateChain, "certificateChain");
        Objects.requireNonNull(privateKey, "privateKey");
    }
}
