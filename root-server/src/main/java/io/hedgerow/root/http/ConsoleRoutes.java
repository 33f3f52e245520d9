package io.hedgerow.root.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The console: {@code GET /} is its page, {@code GET /console/{asset}} its script and style sheet,
 * plain files in the jar ({@code io/hedgerow/root/console/}) with no build step. The files are
 * named here and read once, when the root starts, so serving one never touches the disk or blocks
 * the event loop; a path is looked up by exact name among them, so no path (with {@code ..},
 * encoded slashes or anything else) reaches another resource. An unknown asset is a 404 JSON error,
 * like any unknown path.
 *
 * <p>Each answer carries an {@code ETag} and {@code Cache-Control: no-cache}: browsers keep the
 * files and revalidate them ({@code 304}), so a new jar's console is seen at the next load. The page
 * carries a {@code Content-Security-Policy} allowing only this origin: no inline script, no CDN.
 */
final class ConsoleRoutes implements Routes {
    static final String PAGE = "/";
    static final String PREFIX = "/console/";
    static final String RESOURCE_DIR = "/io/hedgerow/root/console/";
    /** The page first: it is what {@code /} answers. */
    static final List<String> FILES = List.of("index.html", "console.css", "console.js", "favicon.svg");
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private record Asset(byte[] bytes, String type, String etag) {
    }

    private final Map<String, Asset> assets = new LinkedHashMap<>();

    ConsoleRoutes() {
        for (String name : FILES) {
            byte[] bytes = read(name);
            assets.put(name, new Asset(bytes, contentType(name), "\"" + sha256(bytes).substring(0, 16) + "\""));
        }
    }

    @Override
    public boolean handles(String path) {
        return path.equals(PAGE) || path.startsWith(PREFIX);
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        if (exchange.method() != HttpMethod.GET) {
            throw HttpApiHandler.methodNotAllowed(exchange.request(), "GET");
        }
        String name = exchange.path().equals(PAGE) ? FILES.getFirst() : exchange.path().substring(PREFIX.length());
        Asset asset = assets.get(name);
        if (asset == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", "no such console asset: "
                    + exchange.path() + " (expected: one of " + String.join(", ", FILES.subList(1, FILES.size())) + ")");
        }
        boolean unchanged = asset.etag().equals(exchange.request().headers().get(HttpHeaderNames.IF_NONE_MATCH));
        FullHttpResponse response = HttpApiHandler.response(unchanged ? HttpResponseStatus.NOT_MODIFIED : HttpResponseStatus.OK,
                asset.type(), unchanged ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(asset.bytes()));
        response.headers()
                .set(HttpHeaderNames.ETAG, asset.etag())
                .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
                .set("X-Content-Type-Options", "nosniff");
        if (name.endsWith(".html")) {
            response.headers().set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        }
        HttpApiHandler.write(exchange, response);
    }

    static String contentType(String name) {
        String extension = name.substring(name.lastIndexOf('.') + 1);
        return switch (extension) {
            case "html" -> "text/html; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            case "js" -> "text/javascript; charset=utf-8";
            case "svg" -> "image/svg+xml";
            default -> throw new IllegalArgumentException("console file " + name
                    + " (expected: a name ending in .html, .css, .js or .svg)");
        };
    }

    private static byte[] read(String name) {
        try (InputStream in = ConsoleRoutes.class.getResourceAsStream(RESOURCE_DIR + name)) {
            if (in == null) {
                throw new IllegalStateException("console resource " + RESOURCE_DIR + name + " missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading console resource " + name, e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }
}
