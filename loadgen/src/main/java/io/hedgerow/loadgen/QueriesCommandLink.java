package io.hedgerow.loadgen;

import picocli.CommandLine.Command;

/** Placeholder until query sets land. */
@Command(name = "queries", description = "Generate query sets (coming).")
final class QueriesCommandLink implements Runnable {
    @Override
    public void run() {
    }
}
