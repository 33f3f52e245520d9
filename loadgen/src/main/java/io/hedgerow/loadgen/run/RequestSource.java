package io.hedgerow.loadgen.run;

/** The request to send next, as a path and query string. Called on the client's event loop. */
@FunctionalInterface
public interface RequestSource {
    String next();
}
