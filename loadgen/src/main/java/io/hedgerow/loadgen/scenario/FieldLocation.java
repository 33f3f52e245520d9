package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonMappingException.Reference;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where a field or an element of a scenario file starts, found by its path. Jackson reports a
 * problem with a record where the record's object ends, since it builds the record there: in
 * JSON, the line of its closing brace; in YAML, the line after its last field, past the end of the
 * file for the last one. Pointing at where the field or object starts gives the same line in both
 * formats, and the line a reader looks for.
 */
final class FieldLocation {
    private FieldLocation() {
    }

    /**
     * The start of what {@code path} names in {@code content}, or of the closest object on the path
     * that is there (the object a missing field belongs in); empty when not even that is found.
     */
    static Optional<JsonLocation> of(ObjectReader reader, byte[] content, List<Reference> path) {
        if (path.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder pointer = new StringBuilder();
        for (Reference ref : path) {
            pointer.append('/').append(ref.getFieldName() != null
                    ? ref.getFieldName().replace("~", "~0").replace("/", "~1") : Integer.toString(ref.getIndex()));
        }
        String target = pointer.toString();
        JsonLocation closest = null;
        int closestLength = 0;
        try (JsonParser parser = reader.createParser(content)) {
            // After a field name or an object's start, the parser's context is the field's or the element's.
            while (parser.nextToken() != null) {
                String at = parser.getParsingContext().pathAsPointer().toString();
                if (at.equals(target)) {
                    return Optional.of(parser.currentTokenLocation());
                }
                // A missing field is not there: then the object that lacks it.
                if (at.length() > closestLength && target.startsWith(at + "/")) {
                    closest = parser.currentTokenLocation();
                    closestLength = at.length();
                }
            }
        } catch (IOException e) {
            // Malformed past the problem: what was found so far, or Jackson's own location.
        }
        return Optional.ofNullable(closest);
    }
}
