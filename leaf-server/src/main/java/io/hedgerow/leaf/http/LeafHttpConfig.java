package io.hedgerow.leaf.http;

/**
 * The leaf's HTTP port: probes and metrics ({@link LeafHttpServer}). It listens on the leaf's own
 * host (the address roots reach it on), so a probe or a Prometheus that reaches the leaf reaches it.
 *
 * @param enabled whether the leaf opens it at all
 * @param port    the port; 0 picks a free one, which the root's {@code /cluster} names ({@code http})
 */
public record LeafHttpConfig(boolean enabled, int port) {
    public LeafHttpConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("http port: " + port + " (expected: 0..65535, 0 for a free one)");
        }
    }

    /** On a free port: the default, so a leaf is observable unless told otherwise. */
    public static LeafHttpConfig ephemeral() {
        return new LeafHttpConfig(true, 0);
    }

    public static LeafHttpConfig onPort(int port) {
        return new LeafHttpConfig(true, port);
    }

    public static LeafHttpConfig disabled() {
        return new LeafHttpConfig(false, 0);
    }
}
