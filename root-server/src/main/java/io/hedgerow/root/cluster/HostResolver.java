package io.hedgerow.root.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Set;

/**
 * The IP addresses a leaf's host name resolves to, for telling two spellings of one leaf's address apart
 * from two leaves ({@link ClusterState#slotHolding}). May block: called by the membership's and the
 * placement's threads, never by an event loop. Injected so that a test counts lookups without DNS.
 */
@FunctionalInterface
public interface HostResolver {
    /** The JVM's resolver ({@link InetAddress#getAllByName}; it caches answers). */
    HostResolver SYSTEM = host -> {
        try {
            return Set.copyOf(Arrays.asList(InetAddress.getAllByName(host))); // may repeat one
        } catch (UnknownHostException | SecurityException e) {
            return Set.of();
        }
    };

    /** The addresses {@code host} resolves to; empty when it does not. */
    Set<InetAddress> addressesOf(String host);
}
