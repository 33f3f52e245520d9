package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Reads the JSON body of an admin request into its record, as strictly as {@code /search} reads
 * its own: every mistake is an {@link ApiException} (400) naming the field and what was expected.
 */
final class AdminBodies {
    private AdminBodies() {
    }

    /**
     * @param reader       a strict reader of the body's record
     * @param fields       the body's fields, named when an unknown one comes
     * @param example      a valid body, shown when the body is not an object at all
     * @param expectedType what a field of the wrong JSON type must be, e.g. "a number"
     */
    static <T> T read(ByteBuf content, ObjectReader reader, List<String> fields, String example,
            UnaryOperator<String> expectedType) throws ApiException {
        if (!content.isReadable()) {
            throw ApiException.badRequest("empty body (expected: a JSON object such as " + example + ")");
        }
        T body;
        try {
            body = reader.readValue((InputStream) new ByteBufInputStream(content.duplicate()));
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.badRequest("unknown field '" + e.getPropertyName() + "' (expected one of: "
                    + String.join(", ", fields) + ")");
        } catch (JsonParseException e) {
            throw ApiException.badRequest("malformed JSON: " + SearchRequestParser.withoutSourceLocation(e.getOriginalMessage())
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        } catch (MismatchedInputException e) {
            String field = e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
            throw ApiException.badRequest(field == null ? "body must be a JSON object (expected: " + example + ")"
                    : "field '" + field + "' must be " + expectedType.apply(field));
        } catch (JacksonException e) {
            throw ApiException.badRequest("malformed JSON: " + SearchRequestParser.withoutSourceLocation(e.getOriginalMessage()));
        } catch (IOException e) {
            throw ApiException.badRequest("unreadable body: " + e.getMessage());
        }
        if (body == null) {
            throw ApiException.badRequest("body is null (expected: a JSON object such as " + example + ")");
        }
        return body;
    }
}
