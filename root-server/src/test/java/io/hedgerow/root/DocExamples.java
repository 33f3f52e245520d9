package io.hedgerow.root;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reads the examples of the README and the docs, for the tests that send them to a real cluster:
 * the lines of code blocks, the {@code POST /search {...}} examples with the answer each shows, and
 * the comparison of a shown answer with the real one.
 */
public final class DocExamples {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A {@code POST /search} body in a doc and the answer shown after it. */
    public record PostExample(int line, String body, int status, JsonNode shown) {
    }

    private DocExamples() {
    }

    /** The repository's root directory (the one with the README), from a module's working directory. */
    public static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    /** The lines of a Markdown file's code blocks, in order; each block ends with an empty string. */
    public static List<String> codeLines(String file) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(repository().resolve(file))) {
            if (line.startsWith("```")) {
                if (inBlock) {
                    lines.add("");
                }
                inBlock = !inBlock;
            } else if (inBlock) {
                lines.add(line);
            }
        }
        return lines;
    }

    /**
     * Every {@code POST /search {body}} line of a doc's code blocks (the body may go on over the
     * next lines) with the answer shown: a {@code 400 {...}} line right after it, or else the next
     * code block, read as JSON, for a 200.
     */
    public static List<PostExample> postSearchExamples(String file) throws IOException {
        List<String> all = Files.readAllLines(repository().resolve(file));
        List<PostExample> examples = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (!all.get(i).startsWith("POST /search {")) {
                continue;
            }
            int line = i + 1;
            StringBuilder body = new StringBuilder(all.get(i).substring("POST /search ".length()));
            while (!parses(body.toString())) {
                body.append('\n').append(all.get(++i));
            }
            String next = all.get(i + 1);
            if (next.matches("\\d{3} \\{.*")) {
                examples.add(new PostExample(line, body.toString(), Integer.parseInt(next.substring(0, 3)),
                        JSON.readTree(next.substring(4))));
                continue;
            }
            int open = i + 1;
            while (!all.get(open).startsWith("```")) {
                open++;
            }
            if (all.get(open).equals("```")) { // the end of the request's block: the answer's opens next
                open++;
                while (!all.get(open).startsWith("```")) {
                    open++;
                }
            }
            StringBuilder answer = new StringBuilder();
            for (int at = open + 1; !all.get(at).startsWith("```"); at++) {
                answer.append(all.get(at)).append('\n');
            }
            examples.add(new PostExample(line, body.toString(), 200, JSON.readTree(answer.toString())));
        }
        return examples;
    }

    private static boolean parses(String json) {
        try {
            JSON.readTree(json);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Where {@code actual} differs from what a doc shows, or null when it does not: every field
     * shown must be there with the value shown (fields the doc leaves out may be there; {@code
     * took_ms} and {@code request_id}, which change with every request, are not compared; numbers
     * within a millionth; a string shown with {@code ...} must hold the parts around them, in
     * order); arrays have the length shown, or at least the elements shown before a last {@code "..."}.
     */
    public static String mismatch(JsonNode shown, JsonNode actual, String path) {
        if (actual == null || actual.isMissingNode()) {
            return path + ": missing";
        }
        if (shown.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = shown.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (field.getKey().equals("took_ms") || field.getKey().equals("request_id")) {
                    continue;
                }
                String inner = mismatch(field.getValue(), actual.get(field.getKey()), path + "." + field.getKey());
                if (inner != null) {
                    return inner;
                }
            }
            return null;
        }
        if (shown.isArray()) {
            // A last element "..." stands for the elements the doc leaves out: the ones shown come first.
            boolean cut = !shown.isEmpty() && shown.get(shown.size() - 1).isTextual()
                    && shown.get(shown.size() - 1).asText().equals("...");
            int compared = cut ? shown.size() - 1 : shown.size();
            if (cut ? actual.size() < compared : actual.size() != compared) {
                return path + ": " + actual.size() + " elements, the doc shows " + (cut ? "at least " : "") + compared;
            }
            for (int i = 0; i < compared; i++) {
                String inner = mismatch(shown.get(i), actual.get(i), path + "[" + i + "]");
                if (inner != null) {
                    return inner;
                }
            }
            return null;
        }
        if (shown.isTextual() && shown.asText().contains("...")) {
            int from = 0;
            for (String part : shown.asText().split("\\.\\.\\.", -1)) {
                int at = actual.asText().indexOf(part, from);
                if (at < 0) {
                    return path + ": '" + part + "' not in '" + actual.asText() + "'";
                }
                from = at + part.length();
            }
            return null;
        }
        if (shown.isNumber() && actual.isNumber()) {
            return Math.abs(shown.asDouble() - actual.asDouble()) <= 1e-6 * Math.abs(shown.asDouble()) ? null
                    : path + ": " + actual + ", the doc shows " + shown;
        }
        return shown.equals(actual) ? null : path + ": " + actual + ", the doc shows " + shown;
    }
}
