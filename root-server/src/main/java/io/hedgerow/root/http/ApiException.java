package io.hedgerow.root.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the HTTP API refuses, with what the client gets back: a status, a JSON body
 * {@code {"error": code, "detail": detail}} and any headers the status calls for
 * ({@code Retry-After}, {@code WWW-Authenticate}). Control flow for bad input, so no stack trace.
 */
final class ApiException extends Exception {
    private final HttpResponseStatus status;
    private final String code;
    private HttpHeaders headers = EmptyHttpHeaders.INSTANCE;

    ApiException(HttpResponseStatus status, String code, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
    }

    static ApiException badRequest(String detail) {
        return new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_request", detail);
    }

    /** Adds a header to the refusal. */
    ApiException withHeader(CharSequence name, Object value) {
        if (headers == EmptyHttpHeaders.INSTANCE) {
            headers = new DefaultHttpHeaders();
        }
        headers.add(name, value);
        return this;
    }

    HttpResponseStatus status() {
        return status;
    }

    String code() {
        return code;
    }

    String detail() {
        return getMessage();
    }

    HttpHeaders headers() {
        return headers;
    }
}
