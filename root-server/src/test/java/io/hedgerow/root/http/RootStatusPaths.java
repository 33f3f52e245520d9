package io.hedgerow.root.http;

/** For tests outside this package: which status paths the root's HTTP API serves ({@link StatusRoutes}). */
public final class RootStatusPaths {
    private RootStatusPaths() {
    }

    /** Whether the root answers {@code GET path} as a status path; saying so needs none of the routes' collaborators. */
    public static boolean serves(String path) {
        return new StatusRoutes(null, null, null, null, null).handles(path);
    }
}
