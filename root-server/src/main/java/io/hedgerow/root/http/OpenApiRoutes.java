package io.hedgerow.root.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json}: the API described in OpenAPI 3.1, every route the root serves with its
 * parameters, bodies, answers and errors. The document is a checked-in resource next to this class,
 * read once; {@code OpenApiDocumentTest} sends real requests to a real root for each route it names
 * and checks each answer against it (every documented field present where required, nothing
 * undocumented), so a route or field added without documenting it fails the build.
 */
final class OpenApiRoutes implements Routes {
    static final String PATH = "/openapi.json";
    static final String RESOURCE = "openapi.json";

    private final byte[] document;

    OpenApiRoutes() {
        try (InputStream in = OpenApiRoutes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " missing next to " + OpenApiRoutes.class.getName());
            }
            this.document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + RESOURCE, e);
        }
    }

    @Override
    public boolean handles(String path) {
        return PATH.equals(path);
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        if (exchange.method() != HttpMethod.GET) {
            throw HttpApiHandler.methodNotAllowed(exchange.request(), "GET");
        }
        HttpApiHandler.send(exchange, HttpResponseStatus.OK, HttpApiHandler.JSON_TYPE, Unpooled.wrappedBuffer(document));
    }
}
