package io.hedgerow.loadgen.run;

import io.hedgerow.loadgen.http.LoadRequest;

/**
 * The request to send next, built before the run (a source picks one, it does not build it).
 * Called on the client's event loop.
 */
@FunctionalInterface
public interface RequestSource {
    LoadRequest next();
}
