package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.cli.HedgerowCli;
import io.hedgerow.root.TestData;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command in the README works as shown: each {@code curl} runs against a real cluster over
 * the same Europarl index the demo serves and must answer what the README prints (fields the README
 * leaves out may be there; {@code took_ms} is not compared; a string shown with {@code ...} must hold
 * the parts around them, in order); each {@code ./hedgerow} command parses as written. Two are
 * checked elsewhere: {@code ./hedgerow test} is what {@code .ci/run} runs, and the {@code loadgen}
 * lines are parsed by the load generator's own ReadmeLoadgenCommandsTest.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReadmeTourTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "readme-write-token";
    private static final String DEMO_ADDRESS = "http://127.0.0.1:8080";

    static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    /** The lines of the README's code blocks. */
    static List<String> codeLines() throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inBlock = false;
        for (String line : Files.readAllLines(repository().resolve("README.md"))) {
            if (line.startsWith("```")) {
                inBlock = !inBlock;
            } else if (inBlock) {
                lines.add(line);
            }
        }
        return lines;
    }

    @Test
    void everyHedgerowCommandParsesAsWritten() throws IOException {
        List<String> commands = codeLines().stream().map(line -> line.startsWith("$ ") ? line.substring(2) : line)
                .filter(line -> line.startsWith("./hedgerow ")).toList();
        assertThat(commands).as("the README's commands").hasSizeGreaterThanOrEqualTo(4);
        int parsed = 0;
        for (String command : commands) {
            List<String> words = words(command.replaceFirst("\\s+#.*$", ""));
            List<String> args = words.subList(1, words.size());
            String name = args.get(0);
            if (name.equals("test") || name.equals("loadgen")) {
                continue; // .ci/run runs the first; the load generator's test parses the second
            }
            // A fixed environment: no HEDGEROW_CONFIG of the machine's may change what parses.
            HedgerowCli.newCommandLine(Map.of()).parseArgs(args.toArray(String[]::new));
            parsed++;
        }
        assertThat(parsed).as("./hedgerow commands parsed").isGreaterThanOrEqualTo(2);
    }

    @Test
    void everyCurlAnswersWhatTheReadmeShows(@TempDir Path data) throws Exception {
        // A copy of the index the other tests built (the demo's Europarl, 16 partitions): the tour writes to it.
        Path europarl = TestData.europarl(16).dir();
        copy(europarl, data.resolve(europarl.getFileName()));
        List<String> lines = codeLines();
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data).europarl().leaves(4).partitions(16).replicas(2)
                .writeToken(TOKEN).http(0).start();
                HttpClient http = HttpClient.newHttpClient()) {
            int checked = 0;
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).startsWith("$ curl ")) {
                    continue;
                }
                String command = lines.get(i).substring(2);
                String shown = lines.get(i + 1);
                HttpResponse<String> answer = http.send(request(command, cluster.httpPort()),
                        HttpResponse.BodyHandlers.ofString());
                JsonNode actual = JSON.readTree(answer.body());
                assertThat(mismatch(JSON.readTree(shown), actual, "")).as("%s%nREADME: %s%nreal:   %s", command, shown,
                        answer.body()).isNull();
                checked++;
            }
            assertThat(checked).as("curl commands in the README").isGreaterThanOrEqualTo(3);
        }
    }

    /** The request a README curl line makes, sent to {@code port} instead of the demo's. */
    static HttpRequest request(String command, int port) {
        List<String> words = words(command);
        String method = "GET";
        String body = null;
        String url = null;
        List<String> headers = new ArrayList<>();
        for (Iterator<String> it = words.subList(1, words.size()).iterator(); it.hasNext(); ) {
            String word = it.next();
            switch (word) {
                case "-s" -> { }
                case "-X" -> method = it.next();
                case "-H" -> headers.add(it.next());
                case "-d" -> body = it.next();
                default -> {
                    assertThat(word).as("a curl argument the test knows").startsWith(DEMO_ADDRESS);
                    url = "http://127.0.0.1:" + port + word.substring(DEMO_ADDRESS.length());
                }
            }
        }
        assertThat(url).as("the URL of " + command).isNotNull();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (String header : headers) {
            int colon = header.indexOf(':');
            request.header(header.substring(0, colon).trim(), header.substring(colon + 1).trim()
                    .replace("$(cat data/run/write-token)", TOKEN));
        }
        return request.build();
    }

    /** Shell words: single quotes literal, double quotes keep {@code $(...)} for {@link #request} to replace. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    /** Where {@code actual} differs from what the README shows, or null when it does not. */
    static String mismatch(JsonNode shown, JsonNode actual, String path) {
        if (actual == null || actual.isMissingNode()) {
            return path + ": missing";
        }
        if (shown.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = shown.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (field.getKey().equals("took_ms")) {
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
            if (actual.size() != shown.size()) {
                return path + ": " + actual.size() + " elements, the README shows " + shown.size();
            }
            for (int i = 0; i < shown.size(); i++) {
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
                    : path + ": " + actual + ", the README shows " + shown;
        }
        return shown.equals(actual) ? null : path + ": " + actual + ", the README shows " + shown;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }
}
