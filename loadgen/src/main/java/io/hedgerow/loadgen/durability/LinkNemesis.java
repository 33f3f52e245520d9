package io.hedgerow.loadgen.durability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Cuts the network link of one host, chosen at random, for a cluster spread over network
 * namespaces ({@code benchmarks/durability.sh --netns}): every connection to and from the host
 * stalls until heal restores the link. A cut leaf host is a partitioned leaf (its process runs on
 * and keeps its copies); a cut root host leaves the clients no way to it, so their requests fail or
 * time out and never count as acknowledged (with a second root they fail over to it:
 * {@link FailoverClient}). Which host is the seed's choice ({@link #strike}); when
 * and for how long is the {@link NemesisLoop}'s. Setting a link up or down is the
 * {@link LinkSwitch}'s, at the edge ({@link #ipLink()} runs {@code ip link set}).
 *
 * <p><b>Assumptions and guarantees.</b> Called from the loop's thread only. At most one link is cut
 * at a time: a strike while one is cut restores it first, so no host is ever left cut by a
 * strike that replaced it.
 */
public final class LinkNemesis implements Nemesis {
    /** A host and the link that joins it to the others (the bridge side of its veth pair). */
    public record Host(String name, String link) {
        public Host {
            if (name == null || name.isBlank() || link == null || !link.matches("[A-Za-z0-9_.-]{1,15}")) {
                throw new IllegalArgumentException("host: '" + name + "' link '" + link
                        + "' (expected: a name and an interface name of 1-15 letters, digits, '_', '.', '-')");
            }
        }
    }

    /** Sets a link up or down. */
    public interface LinkSwitch {
        void set(String link, boolean up) throws IOException;
    }

    private final List<Host> hosts;
    private final LinkSwitch links;
    private Host cut;

    public LinkNemesis(List<Host> hosts, LinkSwitch links) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: none (expected: at least one host whose link may be cut)");
        }
        this.hosts = List.copyOf(hosts);
        this.links = links;
    }

    /**
     * The hosts of {@code --links}: {@code name=link[,name=link...]}, e.g. {@code leaf1=hrv-leaf1,root1=hrv-root1}.
     */
    public static List<Host> parseHosts(String value) {
        List<Host> hosts = new ArrayList<>();
        for (String pair : value.split(",")) {
            String[] parts = pair.strip().split("=", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("--links: '" + pair + "' in '" + value
                        + "' (expected: name=link[,name=link...], e.g. leaf1=hrv-leaf1)");
            }
            hosts.add(new Host(parts[0].strip(), parts[1].strip()));
        }
        return hosts;
    }

    /** Runs {@code ip link set <link> up|down}; needs root (the durability run's JVM is root with --netns). */
    public static LinkSwitch ipLink() {
        return (link, up) -> {
            try {
                Process ip = new ProcessBuilder("ip", "link", "set", link, up ? "up" : "down").redirectErrorStream(true).start();
                String output = new String(ip.getInputStream().readAllBytes()).strip();
                if (ip.waitFor() != 0) {
                    throw new IOException("ip link set " + link + (up ? " up" : " down") + " failed: " + output);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while setting " + link + (up ? " up" : " down"), e);
            }
        };
    }

    @Override
    public String name() {
        return "link";
    }

    @Override
    public String strike(Random random) throws IOException {
        String healed = heal();
        Host host = hosts.get(random.nextInt(hosts.size()));
        links.set(host.link(), false);
        cut = host;
        return (healed.isEmpty() ? "" : healed + ", then ") + "cut " + host.name() + "'s link (" + host.link() + " down)";
    }

    @Override
    public String heal() throws IOException {
        if (cut == null) {
            return "";
        }
        links.set(cut.link(), true);
        String done = "restore " + cut.name() + "'s link (" + cut.link() + " up)";
        cut = null;
        return done;
    }

    /** The host whose link is cut now, or null. */
    Host cut() {
        return cut;
    }
}
