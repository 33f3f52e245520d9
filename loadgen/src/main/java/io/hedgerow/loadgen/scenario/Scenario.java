package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A load scenario: phases of load, each with its rate, query mix, request options and faults.
 * Read from a JSON file, or a YAML file ({@code .yaml}, {@code .yml}) of the same fields (see
 * docs/loadgen.md); every problem is reported with the file, line, column and the path of the
 * field, e.g. {@code phases[1].faults[0].pause}.
 *
 * @param name        label of the run
 * @param target      root URL; the command line's --target wins
 * @param queries     query set file; default: the one generated for the index
 * @param mix         default query mix of every phase
 * @param seed        seed for arrivals and query choice
 * @param connections in-flight cap (connections of the generator)
 * @param request     request options of every phase
 * @param phases      in order
 */
public record Scenario(
        @JsonProperty(value = "name", required = true) String name,
        @JsonProperty("description") String description,
        @JsonProperty("target") String target,
        @JsonProperty("queries") String queries,
        @JsonProperty("mix") String mix,
        @JsonProperty("seed") Long seed,
        @JsonProperty("connections") Integer connections,
        @JsonProperty("request") RequestOptions request,
        @JsonProperty(value = "phases", required = true) List<ScenarioPhase> phases) {

    private static final ObjectReader READER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.ALLOW_COMMENTS)
            .build()
            .readerFor(Scenario.class);

    private static final ObjectReader YAML_READER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            // YAML 1.1 reads on/off/yes/no as booleans: "hedge: off" must stay the word off.
            .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
            .build()
            .readerFor(Scenario.class);

    public Scenario {
        if (phases == null || phases.isEmpty()) {
            throw new IllegalArgumentException("phases: none (expected: at least one phase)");
        }
        phases = List.copyOf(phases);
        if (connections != null && connections < 1) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: >= 1)");
        }
        request = request == null ? RequestOptions.NONE : request;
    }

    /** Reads and checks a scenario file: YAML when its name ends in {@code .yaml} or {@code .yml}, else JSON. */
    public static Scenario read(Path file) throws IOException {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        ObjectReader reader = name.endsWith(".yaml") || name.endsWith(".yml") ? YAML_READER : READER;
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": no such scenario file");
        }
        try {
            return reader.readValue(content);
        } catch (JsonProcessingException e) {
            throw new IOException(file + describe(e, reader, content), e);
        }
    }

    /**
     * " line L, column C: path: problem" for any Jackson failure, the line and column where the
     * field or object with the problem starts.
     */
    private static String describe(JsonProcessingException e, ObjectReader reader, byte[] content) {
        JsonLocation location = e instanceof JsonMappingException mapping
                ? FieldLocation.of(reader, content, mapping.getPath()).orElse(e.getLocation())
                : e.getLocation();
        String where = location == null ? "" : " line " + location.getLineNr() + ", column " + location.getColumnNr();
        String path = "";
        String problem = e.getOriginalMessage();
        if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            path = mapping.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? "." + ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining()).substring(1);
        }
        if (e instanceof UnrecognizedPropertyException unknown) {
            problem = "unknown field '" + unknown.getPropertyName() + "' (expected one of: "
                    + unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.joining(", ")) + ")";
        } else if (e.getCause() instanceof IllegalArgumentException invalid) {
            problem = invalid.getMessage();
        } else if (problem != null && problem.startsWith("Missing required creator property")) {
            problem = "missing required field " + problem.substring(problem.indexOf('\''), problem.indexOf('\'', problem.indexOf('\'') + 1) + 1);
        } else if (problem != null && problem.contains("known type ids")) {
            problem = "unknown fault type (expected: pause, kill, delay, stall or restart)";
        } else if (problem != null && problem.contains("missing type id")) {
            problem = "a fault needs a \"type\" (pause, kill, delay, stall or restart)";
        }
        return ":" + where + ": " + (path.isEmpty() ? "" : path + ": ") + firstLine(problem);
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "invalid";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
