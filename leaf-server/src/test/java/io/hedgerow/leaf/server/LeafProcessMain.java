package io.hedgerow.leaf.server;

import picocli.CommandLine;

/** {@code hedgerow leaf} as a child JVM's main class, for tests that need a real leaf process (leaf-server has no CLI of its own). */
public final class LeafProcessMain {
    private LeafProcessMain() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LeafCommand()).execute(args));
    }
}
