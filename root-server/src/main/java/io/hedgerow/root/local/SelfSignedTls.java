package io.hedgerow.root.local;

import io.hedgerow.common.net.TlsFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for a local cluster's links, made with the JDK's own {@code keytool}
 * (no library needed): an EC P-256 key and a certificate valid for 30 days for {@code 127.0.0.1},
 * {@code ::1} and {@code localhost}, written as PEM ({@code tls-cert.pem}) and PKCS#8 PEM ({@code
 * tls-key.pem}, readable by its owner only) into the run directory. Every leaf serves it and the
 * root and the leaves trust it: it is the cluster's whole trust, made afresh for each run.
 */
public final class SelfSignedTls {
    static final String CERT_FILE = "tls-cert.pem";
    static final String KEY_FILE = "tls-key.pem";
    private static final String ALIAS = "hedgerow";

    private SelfSignedTls() {
    }

    /** Makes the pair in {@code dir} (replacing one there) and returns it; the certificate is its own trust. */
    public static TlsFiles generate(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path store = Files.createTempFile(dir, "tls-", ".p12");
        Files.delete(store); // keytool creates it
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        String password = HexFormat.of().formatHex(random);
        try {
            keytool(List.of("-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
                    "-sigalg", "SHA256withECDSA", "-dname", "CN=hedgerow local cluster", "-validity", "30",
                    "-ext", "SAN=ip:127.0.0.1,ip:::1,dns:localhost", "-storetype", "PKCS12", "-keystore",
                    store.toString(), "-storepass", password, "-keypass", password, "-noprompt"));
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                keys.load(in, password.toCharArray());
            }
            Key key = keys.getKey(ALIAS, password.toCharArray());
            Certificate certificate = keys.getCertificate(ALIAS);
            Path certFile = dir.resolve(CERT_FILE);
            Path keyFile = dir.resolve(KEY_FILE);
            Files.deleteIfExists(keyFile);
            Files.createFile(keyFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8, as the JDK encodes it
            Files.writeString(certFile, pem("CERTIFICATE", certificate.getEncoded()));
            return new TlsFiles(certFile, keyFile, certFile);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the key pair keytool made in " + store + ": " + e.getMessage(), e);
        } finally {
            Files.deleteIfExists(store);
        }
    }

    private static void keytool(List<String> arguments) throws IOException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        if (!Files.isExecutable(keytool)) {
            throw new IOException("no keytool at " + keytool + " (expected: a JDK's; a JRE has none)");
        }
        List<String> command = new ArrayList<>();
        command.add(keytool.toString());
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("keytool could not make a certificate: " + output.strip());
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool made a certificate", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
