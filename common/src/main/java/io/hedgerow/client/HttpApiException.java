package io.hedgerow.client;

/**
 * The root refused a request that is not a search (a write without its token, a malformed
 * document id...), or could not be reached: the HTTP status (0 when no answer came), the root's
 * error code ({@code unauthorized}, {@code bad_request}...) and its detail as the message.
 * Searches fail with {@link io.hedgerow.api.SearchException} instead, as the embedded client's do.
 */
public final class HttpApiException extends RuntimeException {
    private final int status;
    private final String code;

    public HttpApiException(int status, String code, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
    }

    /** The HTTP status, or 0 when the root could not be reached. */
    public int status() {
        return status;
    }

    /** The root's error code, e.g. {@code unauthorized}; {@code unreachable} when no answer came. */
    public String code() {
        return code;
    }
}
