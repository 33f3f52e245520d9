package io.hedgerow.root.cluster;

/** A leaf's {@code host:port}. */
public record LeafAddress(String host, int port) {

    public LeafAddress {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("host: empty (expected: a host name or address)");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1..65535)");
        }
    }

    /** Parses {@code host:port}; the message names the bad value. */
    public static LeafAddress parse(String address) {
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("leaf address: '" + address + "' (expected: host:port)");
        }
        try {
            return new LeafAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("leaf address: '" + address + "' (expected: host:port with a numeric port)");
        }
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
