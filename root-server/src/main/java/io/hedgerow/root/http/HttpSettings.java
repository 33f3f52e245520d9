package io.hedgerow.root.http;

import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.time.Durations;
import io.hedgerow.root.admission.AdmissionSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the root's HTTP intake: where it listens, what it admits, and the limits that keep
 * one client from costing the others their service.
 *
 * @param host           the address to bind
 * @param port           the port; 0 picks a free one
 * @param admission      how many searches may run at once ({@link io.hedgerow.root.admission.AdmissionControl})
 * @param maxConnections connections open at once; one more is closed as soon as it is accepted
 * @param idleTimeout    a connection with no request in progress for this long is closed
 * @param requestTimeout a request must arrive whole (request line, headers, body) within this
 *                       long of its first byte, or the connection is closed (a client sending one
 *                       byte a second holds nothing for long)
 * @param maxPipelined   requests a client may send ahead of its answers on one connection; past
 *                       it the connection is closed
 * @param writeTimeout   a connection whose client takes none of its answer for this long (the
 *                       socket stays full) is closed
 * @param drainTimeout   on stop, how long the root waits for the searches in flight to end
 *                       (each ends by its own deadline anyway) and for its clients to stop sending
 * @param quietPeriod    on stop, an idle keep-alive connection is closed only once no request byte has
 *                       arrived on any connection for this long ({@link ConnectionDrain}): a client
 *                       still sending may be about to write on it
 * @param adminToken     the token {@code /admin} requests must carry ({@code Authorization: Bearer
 *                       <token>}); null: this root has no admin token and refuses every {@code /admin} request
 * @param writeToken     the token {@code POST}, {@code PUT} and {@code DELETE} on {@code /documents} must
 *                       carry; null: writes need none (a root on loopback, or behind a proxy that checks)
 * @param tls            serve HTTPS with this certificate and key; null for plain HTTP
 * @param slowQuery      a search that takes at least this long (from its first byte to its answer)
 *                       is written to the slow-query log with its explain trace; zero for none
 */
public record HttpSettings(String host, int port, AdmissionSettings admission, int maxConnections, Duration idleTimeout,
        Duration requestTimeout, int maxPipelined, Duration writeTimeout, Duration drainTimeout, Duration quietPeriod,
        String adminToken, String writeToken, TlsFiles tls, Duration slowQuery) {
    /** Shortest admin token accepted: a token is a password, and a short one can be guessed. */
    public static final int MIN_TOKEN_CHARS = 16;
    /** Searches this slow or slower go to the slow-query log unless configured otherwise. */
    public static final Duration DEFAULT_SLOW_QUERY = Duration.ofSeconds(1);

    public HttpSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(admission, "admission");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 1)");
        }
        requirePositive("idleTimeout", idleTimeout);
        requirePositive("requestTimeout", requestTimeout);
        requirePositive("writeTimeout", writeTimeout);
        requirePositive("drainTimeout", drainTimeout);
        requirePositive("quietPeriod", quietPeriod);
        if (maxPipelined < 1) {
            throw new IllegalArgumentException("maxPipelined: " + maxPipelined + " (expected: >= 1)");
        }
        requireToken("adminToken", adminToken);
        requireToken("writeToken", writeToken);
        Objects.requireNonNull(slowQuery, "slowQuery");
        if (slowQuery.isNegative()) {
            throw new IllegalArgumentException("slowQuery: " + Durations.format(slowQuery) + " (expected: >= 0, 0 for no"
                    + " slow-query log)");
        }
    }

    private static void requireToken(String name, String token) {
        if (token != null && (token.length() < MIN_TOKEN_CHARS || token.isBlank())) {
            throw new IllegalArgumentException(name + ": " + token.length() + " characters (expected: at least "
                    + MIN_TOKEN_CHARS + ", not blank)");
        }
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + Durations.format(value) + " (expected: > 0)");
        }
    }

    /**
     * On {@code host:port}: the default admission control, 10,000 connections, closed after 60 s
     * idle, 10 s to send a request, 16 pipelined requests, 30 s for a stuck client to read, 30 s to
     * drain on stop with a quiet period of 500 ms, no admin token, plain HTTP, searches of 1 s or more
     * in the slow-query log.
     */
    public static HttpSettings defaults(String host, int port) {
        return new HttpSettings(host, port, AdmissionSettings.defaults(), 10_000, Duration.ofSeconds(60),
                Duration.ofSeconds(10), 16, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMillis(500),
                null, null, null, DEFAULT_SLOW_QUERY);
    }

    public HttpSettings withPort(int value) {
        return new HttpSettings(host, value, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withAdmission(AdmissionSettings value) {
        return new HttpSettings(host, port, value, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withMaxConnections(int value) {
        return new HttpSettings(host, port, admission, value, idleTimeout, requestTimeout, maxPipelined, writeTimeout,
                drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withIdleTimeout(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, value, requestTimeout, maxPipelined, writeTimeout,
                drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withRequestTimeout(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, value, maxPipelined, writeTimeout,
                drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withMaxPipelined(int value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, value, writeTimeout,
                drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withWriteTimeout(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined, value,
                drainTimeout, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withDrainTimeout(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, value, quietPeriod, adminToken, writeToken, tls, slowQuery);
    }

    public HttpSettings withQuietPeriod(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, value, adminToken, writeToken, tls, slowQuery);
    }

    /** A new random admin token: 32 URL-safe characters (192 bits) from {@link java.security.SecureRandom}. */
    public static String newAdminToken() {
        byte[] bytes = new byte[24];
        new java.security.SecureRandom().nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The token {@code /admin} requests must carry; null for none (then {@code /admin} refuses everyone). */
    public HttpSettings withAdminToken(String value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, value, writeToken, tls, slowQuery);
    }

    /** The token writes to {@code /documents} must carry; null for none. */
    public HttpSettings withWriteToken(String value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, adminToken, value, tls, slowQuery);
    }

    /** Serve HTTPS with these files; null for plain HTTP. */
    public HttpSettings withTls(TlsFiles value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, adminToken, writeToken, value, slowQuery);
    }

    /** Searches at least this slow go to the slow-query log, with their trace; zero for none. */
    public HttpSettings withSlowQuery(Duration value) {
        return new HttpSettings(host, port, admission, maxConnections, idleTimeout, requestTimeout, maxPipelined,
                writeTimeout, drainTimeout, quietPeriod, adminToken, writeToken, tls, value);
    }
}
