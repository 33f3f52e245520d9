package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.cli.HedgerowCli;
import io.hedgerow.root.DocExamples;
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
 * the same Europarl index the demo serves and must answer what the README prints (as {@link
 * DocExamples#mismatch} compares: fields the README leaves out may be there; {@code took_ms} and
 * {@code request_id} are not compared; a string shown with {@code ...} must hold the parts around
 * them, in order); so must docs/tour.md's searches and docs/http-api.md's searches and refusals on
 * that index; each {@code ./hedgerow} command parses as written. Two are
 * checked elsewhere: {@code ./hedgerow test} is what {@code .ci/run} runs, and the {@code loadgen}
 * lines are parsed by the load generator's own ReadmeLoadgenCommandsTest.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReadmeTourTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "readme-write-token";
    private static final String ADMIN = "readme-admin-token";
    private static final String DEMO_ADDRESS = "http://127.0.0.1:8080";
    /** docs/http-api.md's examples ran on a local cluster of the same index on this port. */
    private static final String HTTP_API_ADDRESS = "http://127.0.0.1:18080";

    /** The lines of the README's code blocks. */
    static List<String> codeLines() throws IOException {
        return DocExamples.codeLines("README.md");
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
    void everyCurlAnswersWhatTheDocsShow(@TempDir Path data) throws Exception {
        // A copy of the index the other tests built (the demo's Europarl, 16 partitions): the tour writes to it.
        Path europarl = TestData.europarl(16).dir();
        copy(europarl, data.resolve(europarl.getFileName()));
        List<CurlExample> examples = new ArrayList<>(curlExamples("README.md", DEMO_ADDRESS, section -> true));
        int readme = examples.size();
        examples.addAll(curlExamples("docs/tour.md", DEMO_ADDRESS, section -> true));
        int tour = examples.size() - readme;
        // docs/http-api.md's searches and refusals on the same index (not those of a cluster in trouble,
        // nor those that time out, send a file or show headers).
        examples.addAll(curlExamples("docs/http-api.md", HTTP_API_ADDRESS,
                section -> section.equals("## Searching") || section.equals("## Stopping")).stream()
                .filter(example -> !example.command().contains("timeout_ms") && !example.command().contains(" -si ")
                        && !example.command().contains("@")).toList());
        int httpApi = examples.size() - readme - tour;
        List<String> problems = new ArrayList<>();
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data).europarl().leaves(4).partitions(16).replicas(2)
                .writeToken(TOKEN).faultInjection(true).adminToken(ADMIN).http(0).start();
                HttpClient http = HttpClient.newHttpClient()) {
            for (CurlExample example : examples) {
                HttpResponse<String> answer = http.send(request(example.command(), example.address(), cluster.httpPort()),
                        HttpResponse.BodyHandlers.ofString());
                String mismatch = DocExamples.mismatch(JSON.readTree(example.shown()), JSON.readTree(answer.body()), "");
                if (mismatch != null) {
                    problems.add(String.format("%s: %s%n%s%nshown: %s%nreal:  %s", example.file(), mismatch,
                            example.command(), example.shown(), answer.body()));
                }
            }
        }
        assertThat(problems).as("doc examples whose answer is not what the doc shows").isEmpty();
        assertThat(readme).as("curl commands in the README").isGreaterThanOrEqualTo(5);
        assertThat(tour).as("curl commands with a JSON answer in docs/tour.md").isGreaterThanOrEqualTo(3);
        assertThat(httpApi).as("curl commands with a JSON answer in docs/http-api.md").isGreaterThanOrEqualTo(15);
    }

    /** A curl command of a doc that sends to {@code address}, with the JSON answer the doc shows after it. */
    record CurlExample(String file, String address, String command, String shown) {
    }

    /**
     * The {@code $ curl} commands to {@code address} in the code blocks of {@code file}'s sections
     * that {@code sections} takes (by their {@code ## } heading), with a command's continuation
     * lines ({@code \\} at the end) and without a pipe to a formatter; each with the answer shown:
     * the lines after it up to the next command or the block's end, or else the next block. A
     * command whose answer is not JSON (a formatter's other output, headers) is left out.
     */
    static List<CurlExample> curlExamples(String file, String address, java.util.function.Predicate<String> sections)
            throws IOException {
        List<String> lines = Files.readAllLines(DocExamples.repository().resolve(file));
        List<CurlExample> examples = new ArrayList<>();
        String section = "";
        boolean inBlock = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            if (!inBlock) {
                if (line.startsWith("## ")) {
                    section = line;
                }
                continue;
            }
            if (!line.startsWith("$ curl ") || !line.contains(address) || !sections.test(section)) {
                continue;
            }
            StringBuilder command = new StringBuilder(line.substring(2));
            while (command.toString().endsWith("\\")) {
                command.setLength(command.length() - 1);
                command.append(' ').append(lines.get(++i).strip());
            }
            int pipe = command.indexOf(" | ");
            String sent = (pipe < 0 ? command.toString() : command.substring(0, pipe)).replaceFirst("\\s+#.*$", "");
            StringBuilder shown = new StringBuilder();
            int at = i + 1;
            while (!lines.get(at).startsWith("```") && !lines.get(at).startsWith("$ ")) {
                shown.append(lines.get(at++)).append('\n');
            }
            if (shown.isEmpty() && lines.get(at).equals("```") && lines.get(at + 1).startsWith("```json")) {
                for (at += 2; !lines.get(at).startsWith("```"); at++) {
                    shown.append(lines.get(at)).append('\n');
                }
            }
            if (isJson(shown.toString())) {
                examples.add(new CurlExample(file, address, sent, shown.toString().strip()));
            }
        }
        return examples;
    }

    private static boolean isJson(String text) {
        try {
            return !text.isBlank() && JSON.readerFor(JsonNode.class)
                    .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(text) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The request a README curl line makes, sent to {@code port} instead of the demo's. */
    static HttpRequest request(String command, String address, int port) {
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
                    assertThat(word).as("a curl argument the test knows").startsWith(address);
                    url = "http://127.0.0.1:" + port + word.substring(address.length());
                }
            }
        }
        assertThat(url).as("the URL of " + command).isNotNull();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null && headers.stream().noneMatch(header -> header.regionMatches(true, 0, "Content-Type:", 0, 13))) {
            headers.add("Content-Type: application/x-www-form-urlencoded"); // what curl -d sends unless told
        }
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
