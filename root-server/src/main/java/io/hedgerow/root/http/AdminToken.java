package io.hedgerow.root.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * A bearer token a group of routes requires: {@code Authorization: Bearer <token>}. The admin
 * routes ({@code /admin/...}) require the admin token, and a root without one refuses every admin
 * request, so an admin surface is never open by default; writes to {@code /documents} require the
 * write token when the root has one. Refusals are 401 with a {@code WWW-Authenticate} header and a JSON body that says what
 * was missing, never what the token is.
 *
 * <p><b>Assumptions and guarantees.</b> Immutable and thread-safe. The comparison takes the same
 * time whatever the guess ({@link MessageDigest#isEqual}), so the token cannot be found a byte at
 * a time from response times.
 */
final class AdminToken {
    private static final String SCHEME = "Bearer ";

    /** Null: no token, every admin request is refused. */
    private final byte[] token;
    /** "admin" or "write", for the messages. */
    private final String kind;

    private AdminToken(byte[] token, String kind) {
        this.token = token;
        this.kind = kind;
    }

    /** Requires {@code token}; null refuses every admin request. */
    static AdminToken of(String token) {
        return of(token, "admin");
    }

    /** Requires {@code token}, named {@code kind} in refusals. */
    static AdminToken of(String token, String kind) {
        return new AdminToken(token == null ? null : token.getBytes(StandardCharsets.UTF_8), kind);
    }

    /** Whether there is a token to require. */
    boolean exists() {
        return token != null;
    }

    /** Passes when the request carries the token; otherwise throws the 401 to answer with. */
    void check(FullHttpRequest request) throws ApiException {
        if (token == null) {
            throw unauthorized("this root was started without an admin token (--admin-token or HEDGEROW_ADMIN_TOKEN),"
                    + " so its admin routes are closed");
        }
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null) {
            throw unauthorized(kind + " routes need the header 'Authorization: Bearer <" + kind + " token>'");
        }
        if (!header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            throw unauthorized("Authorization: expected the Bearer scheme with the " + kind + " token");
        }
        byte[] given = header.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token)) {
            throw unauthorized("the " + kind + " token does not match");
        }
    }

    private ApiException unauthorized(String detail) {
        return new ApiException(HttpResponseStatus.UNAUTHORIZED, "unauthorized", detail)
                .withHeader(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"hedgerow-" + kind + "\"");
    }
}
