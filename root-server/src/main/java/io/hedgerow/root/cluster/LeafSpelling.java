package io.hedgerow.root.cluster;

import java.net.InetAddress;
import java.util.Set;

/**
 * One spelling of a leaf's address being matched to the slots ({@link ClusterState#slotHolding}), its
 * host resolved at most once however many slots and calls it is compared against: a registration is
 * matched up to three times while it finds its slot ({@link LeafMembers}), against every slot at its port.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: made and used by one thread, for one match.
 */
final class LeafSpelling {
    private final LeafAddress address;
    private final HostResolver resolver;
    private Set<InetAddress> resolved;

    LeafSpelling(LeafAddress address, HostResolver resolver) {
        this.address = address;
        this.resolver = resolver;
    }

    LeafAddress address() {
        return address;
    }

    /** What its host resolves to (empty when it does not), resolved on first call. */
    Set<InetAddress> resolved() {
        if (resolved == null) {
            resolved = resolver.addressesOf(address.host());
        }
        return resolved;
    }
}
