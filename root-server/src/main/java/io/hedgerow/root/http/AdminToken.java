package io.hedgerow.root.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The token the admin routes ({@code /admin/...}) require: {@code Authorization: Bearer <token>}.
 * A root without a token refuses every admin request, so an admin surface is never open by
 * default. Refusals are 401 with a {@code WWW-Authenticate} header and a JSON body that says what
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

    private AdminToken(byte[] token) {
        this.token = token;
    }

    /** Requires {@code token}; null refuses every admin request. */
    static AdminToken of(String token) {
        return new AdminToken(token == null ? null : token.getBytes(StandardCharsets.UTF_8));
    }

    /** Passes when the request carries the token; otherwise throws the 401 to answer with. */
    void check(FullHttpRequest request) throws ApiException {
        if (token == null) {
            throw unauthorized("this root was started without an admin token (--admin-token or HEDGEROW_ADMIN_TOKEN),"
                    + " so its admin routes are closed");
        }
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null) {
            throw unauthorized("admin routes need the header 'Authorization: Bearer <admin token>'");
        }
        if (!header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            throw unauthorized("Authorization: expected the Bearer scheme with the admin token");
        }
        byte[] given = header.substring(SCHEME.length()).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token)) {
            throw unauthorized("the admin token does not match");
        }
    }

    private static ApiException unauthorized(String detail) {
        return new ApiException(HttpResponseStatus.UNAUTHORIZED, "unauthorized", detail)
                .withHeader(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"hedgerow-admin\"");
    }
}
