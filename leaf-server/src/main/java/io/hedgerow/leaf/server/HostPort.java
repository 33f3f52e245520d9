package io.hedgerow.leaf.server;

/**
 * Another leaf's address as this leaf dials it: {@code host:port}, the port 1-65535.
 *
 * @param host the text before the last colon
 * @param port the number after it
 */
record HostPort(String host, int port) {
    /** The address {@code text} names, or null when it is not {@code host:port} with a port 1-65535. */
    static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        return port < 1 || port > 65535 ? null : new HostPort(text.substring(0, colon), port);
    }
}
