package io.hedgerow.common.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

/**
 * The shared secret of a cluster: every root and leaf of it carries the same one, and a leaf serves
 * a connection only when its Hello names it. It travels in a file readable by its owner only or in
 * the environment variable {@value #ENV}, never on a command line, where {@code ps} would show it
 * to every user of the machine.
 */
public final class ClusterSecret {
    /** The environment variable a leaf or root reads the secret from when no file is named. */
    public static final String ENV = "HEDGEROW_CLUSTER_SECRET";
    /** The name of the file {@code local} and {@code demo} write it to, in their run directory. */
    public static final String FILE_NAME = "cluster-secret";
    private static final int MIN_CHARS = 16;

    private ClusterSecret() {
    }

    /** A new random secret: 32 random bytes in hex. */
    public static String generate() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * The secret in {@code file} (its first line, trimmed).
     *
     * @throws IOException naming the file when it is missing, empty or too short
     */
    public static String read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "no cluster secret file " + file);
        }
        int newline = text.indexOf('\n');
        String secret = newline < 0 ? text : text.substring(0, newline).strip();
        return check(secret, "cluster secret file " + file);
    }

    /**
     * The secret {@code file} holds, or, without a file, the one in the environment variable
     * {@value #ENV}; null when neither gives one.
     */
    public static String fromFileOrEnvironment(Path file, Map<String, String> environment) throws IOException {
        if (file != null) {
            return read(file);
        }
        String value = environment.get(ENV);
        return value == null || value.isBlank() ? null : check(value.strip(), "environment variable " + ENV);
    }

    /** Writes the secret to {@code file}, readable and writable by its owner only. */
    public static void write(Path file, String secret) throws IOException {
        check(secret, "secret");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
    }

    private static String check(String secret, String where) throws IOException {
        if (secret.length() < MIN_CHARS || secret.chars().anyMatch(Character::isWhitespace)) {
            throw new IOException(where + ": a secret of " + secret.length() + " characters (expected: at least "
                    + MIN_CHARS + " characters, no spaces)");
        }
        return secret;
    }
}
