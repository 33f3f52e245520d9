package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loadgen read FOLDER PATH...}: prints values of a run's {@code summary.json}, one per line,
 * so scripts read results without parsing the printed table.
 */
@Command(name = "read", mixinStandardHelpOptions = true,
        description = {"Print values of a results folder's summary.json, one line per PATH, for scripts.",
                "A PATH is dotted: an object's field, an array's index, or in an array of phases a phase's name.",
                "Objects and arrays print as JSON, null as 'null'; a PATH that names nothing is an error (exit 2).",
                "",
                "Examples:",
                "  ./hedgerow loadgen read results/20261125-101500-capacity capacity.rate_per_s capacity.status",
                "  ./hedgerow loadgen read results/X phases.paused.latency_ms.answered.p99 phases.0.goodput_per_s",
                ""})
public final class ReadCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FOLDER", description = "A results folder of ./hedgerow loadgen.")
    private Path folder;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Dotted paths into summary.json.")
    private List<String> paths;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path summary = folder.resolve(ReportWriter.SUMMARY);
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(summary));
        } catch (IOException e) {
            err.println("error: " + summary + ": " + e.getMessage() + " (expected a results folder of ./hedgerow loadgen)");
            return 1;
        }
        for (String path : paths) {
            JsonNode value = find(root, path);
            if (value == null) {
                err.println("error: " + summary + " has nothing at '" + path + "'");
                return 2;
            }
            out.println(value.isValueNode() && !value.isNull() ? value.asText() : value.toString());
        }
        out.flush();
        return 0;
    }

    /** The node at a dotted path, or null. */
    static JsonNode find(JsonNode root, String path) {
        JsonNode node = root;
        for (String part : path.split("\\.")) {
            if (node == null) {
                return null;
            }
            if (node.isArray()) {
                node = part.matches("\\d+") ? node.get(Integer.parseInt(part)) : byName(node, part);
            } else {
                node = node.get(part);
            }
        }
        return node;
    }

    private static JsonNode byName(JsonNode array, String name) {
        for (JsonNode element : array) {
            if (name.equals(element.path("name").asText(null))) {
                return element;
            }
        }
        return null;
    }
}
