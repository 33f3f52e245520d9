package io.hedgerow.root.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the HTTP API refuses, with what the client gets back: a status and a JSON body
 * {@code {"error": code, "detail": detail}}. Control flow for bad input, so no stack trace.
 */
final class ApiException extends Exception {
    private final HttpResponseStatus status;
    private final String code;

    ApiException(HttpResponseStatus status, String code, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.code = code;
    }

    static ApiException badRequest(String detail) {
        return new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_request", detail);
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
}
