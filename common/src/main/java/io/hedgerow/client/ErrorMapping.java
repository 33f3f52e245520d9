package io.hedgerow.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.hedgerow.api.SearchException;

/**
 * Reads the root's error bodies, {@code {"error": code, "detail": text}}, and turns them into the
 * exceptions the embedded client throws: the root's detail becomes the message unchanged, so a
 * caller sees the same words over HTTP as in process.
 */
final class ErrorMapping {
    private ErrorMapping() {
    }

    /** One refusal as the root wrote it. */
    record ApiError(int status, String code, String detail) {
    }

    /** The error of a non-2xx answer; a body that is not the root's error shape is quoted as the detail. */
    static ApiError read(int status, JsonNode body, String rawBody) {
        if (body != null && body.path("error").isTextual() && body.path("detail").isTextual()) {
            return new ApiError(status, body.get("error").asText(), body.get("detail").asText());
        }
        String quoted = rawBody == null || rawBody.isBlank() ? "no body" : rawBody.strip();
        return new ApiError(status, "http_" + status, "HTTP " + status + ": "
                + (quoted.length() > 500 ? quoted.substring(0, 500) + "..." : quoted));
    }

    /** What a search refusal means to a caller, in {@link SearchException.Kind}s. */
    static SearchException toSearchException(ApiError error, String suffix) {
        SearchException.Kind kind = switch (error.code()) {
            case "timed_out" -> SearchException.Kind.TIMED_OUT;
            case "shutting_down" -> SearchException.Kind.SHUTTING_DOWN;
            case "dangerous_query" -> SearchException.Kind.DANGEROUS;
            case "blocklisted" -> SearchException.Kind.BLOCKLISTED;
            // unavailable, overloaded (after the retries), internal, and any other 5xx
            default -> error.status() >= 400 && error.status() < 500 ? SearchException.Kind.BAD_QUERY
                    : error.status() == 504 ? SearchException.Kind.TIMED_OUT : SearchException.Kind.UNAVAILABLE;
        };
        return new SearchException(kind, error.detail() + suffix);
    }

    static HttpApiException toHttpApiException(ApiError error, String suffix) {
        return new HttpApiException(error.status(), error.code(), error.detail() + suffix);
    }
}
