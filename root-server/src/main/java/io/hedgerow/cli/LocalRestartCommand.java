package io.hedgerow.cli;

import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hedgerow local restart --rolling}: asks a running local cluster, found through its run
 * directory (the root's port file and admin token), to restart every leaf one at a time
 * ({@code POST /admin/leaves/restart?rolling=true}), and waits until it is done.
 */
@Command(name = "restart", mixinStandardHelpOptions = true,
        description = {"Restart every leaf of a running local cluster one at a time: each is drained (it answers what",
                "it holds; new work goes to its replicas), started again, and ready (all its partitions open) before",
                "the next. With 2 or more replicas no search loses a partition."})
final class LocalRestartCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--rolling", required = true, description = "One leaf at a time (the only kind there is).")
    private boolean rolling;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "${env:HEDGEROW_DATA:-data}",
            description = "Data folder of the cluster (default: ${DEFAULT-VALUE}).")
    private Path dataDir;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "Its run folder (default: <data>/run).")
    private Path runDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "The root's address (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10m",
            converter = io.hedgerow.leaf.server.LeafCommand.DurationConverter.class,
            description = "Give up waiting after this long (default: ${DEFAULT-VALUE}).")
    private Duration timeout;

    @Override
    public Integer call() throws InterruptedException {
        RunDirectory run = new RunDirectory(runDir != null ? runDir : dataDir.resolve("run"));
        try {
            int port = Integer.parseInt(read(run.portFile("root"), run).trim());
            String token = read(run.adminTokenFile(), run).trim();
            URI uri = URI.create("http://" + host + ":" + port + "/admin/leaves/restart?rolling=true");
            spec.commandLine().getOut().println("Restarting every leaf one at a time (" + uri + ")...");
            spec.commandLine().getOut().flush();
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri)
                    .timeout(timeout)
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                spec.commandLine().getErr().println("error: HTTP " + answer.statusCode() + ": " + answer.body());
                return 1;
            }
            spec.commandLine().getOut().println(answer.body());
            return 0;
        } catch (IOException | NumberFormatException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }

    private static String read(Path file, RunDirectory run) throws IOException {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IOException("no local cluster is running from " + run.dir() + " (no " + file.getFileName()
                    + "); start one with ./hedgerow local, or name its folder with --run-dir");
        }
    }
}
