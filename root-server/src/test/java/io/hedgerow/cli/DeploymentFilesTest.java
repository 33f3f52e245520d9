package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.leaf.http.LeafHttpServer;
import io.hedgerow.leaf.http.ProbeState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.http.RootStatusPaths;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The deployment files under root-server/src/dist/ (systemd units, the Containerfile, the Kubernetes manifests and
 * the configuration files they use) say what the code does: no Kubernetes, systemd or Docker runs here,
 * so this is all that checks them. Every command line they run is parsed by Hedgerow's own command line
 * with their configuration file (a wrong flag or key fails); their ports are the ones those command
 * lines listen on, the root's being the code's default; their probes ask for paths the root and the
 * leaf serve; the Services select the pods and name their ports.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeploymentFilesTest {
    /** Where the units and the manifests mount the configuration file. */
    private static final String CONFIG_PATH = "/etc/hedgerow/hedgerow.yaml";
    /** Where the tarball is installed (the units) and unpacked in the image. */
    private static final String LAUNCHER = "/opt/hedgerow/bin/hedgerow";
    private static final Pattern ENV_NAME = Pattern.compile("HEDGEROW_[A-Z_]+");
    private static final Pattern POD_REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    private static EventLoopGroup leafHttpGroup;
    private static LeafHttpServer leafHttp;
    private static HttpClient http;

    @TempDir
    Path scratch;

    @BeforeAll
    static void startLeafHttp() throws IOException {
        // A leaf's real HTTP server, ready, so a probe path it does not serve answers 404.
        leafHttpGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        leafHttp = LeafHttpServer.start(leafHttpGroup, NioServerSocketChannel.class, "127.0.0.1", 0,
                () -> CompletableFuture.completedFuture(null), () -> new ProbeState(true, "ready", "test"), () -> "");
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopLeafHttp() {
        if (leafHttp != null) {
            leafHttp.close();
        }
        leafHttpGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
        http.close();
    }

    // --- Kubernetes ------------------------------------------------------------------------------

    @Test
    void everyManifestParsesAsYamlAndTheKustomizationNamesThem() throws IOException {
        List<Path> files = manifestFiles();
        assertThat(files).extracting(f -> f.getFileName().toString())
                .contains("configmap.yaml", "leaf.yaml", "root.yaml", "zookeeper.yaml", "kustomization.yaml");
        for (Path file : files) {
            List<JsonNode> documents = documents(file);
            assertThat(documents).as(file + ": YAML documents").isNotEmpty();
            for (JsonNode document : documents) {
                assertThat(document.path("apiVersion").asText()).as(file + ": apiVersion").isNotEmpty();
                assertThat(document.path("kind").asText()).as(file + ": kind").isNotEmpty();
                if (!document.path("kind").asText().equals("Kustomization")) {
                    assertThat(document.path("metadata").path("name").asText()).as(file + ": metadata.name").isNotEmpty();
                }
            }
        }
        JsonNode kustomization = documents(kubernetes().resolve("kustomization.yaml")).getFirst();
        for (JsonNode resource : kustomization.path("resources")) {
            assertThat(kubernetes().resolve(resource.asText())).as("kustomization resource").exists();
        }
    }

    @Test
    void servicesSelectTheirPodsAndNameTheirPorts() throws IOException {
        List<JsonNode> workloads = workloads();
        List<JsonNode> services = byKind("Service");
        assertThat(services).extracting(s -> s.path("metadata").path("name").asText())
                .contains("hedgerow-root", "hedgerow-leaf", "hedgerow-zk");
        for (JsonNode workload : workloads) {
            String name = name(workload);
            assertThat(labels(workload.path("spec").path("template").path("metadata").path("labels")))
                    .as(name + ": its pods carry its selector's labels")
                    .containsAllEntriesOf(labels(workload.path("spec").path("selector").path("matchLabels")));
        }
        for (JsonNode service : services) {
            String name = name(service);
            Map<String, String> selector = labels(service.path("spec").path("selector"));
            List<JsonNode> selected = workloads.stream()
                    .filter(w -> labels(w.path("spec").path("template").path("metadata").path("labels")).entrySet()
                            .containsAll(selector.entrySet()))
                    .toList();
            assertThat(selected).as("Service " + name + " selects the pods of exactly one workload").hasSize(1);
            Map<String, Integer> containerPorts = containerPorts(selected.getFirst());
            for (JsonNode port : service.path("spec").path("ports")) {
                String target = port.path("targetPort").asText();
                assertThat(containerPorts).as("Service " + name + ": targetPort " + target + " is a named container port")
                        .containsKey(target);
                assertThat(port.path("port").asInt()).as("Service " + name + ": port " + target
                        + " is the container's (pods are dialled by name at the container's port)")
                        .isEqualTo(containerPorts.get(target));
            }
        }
        for (JsonNode statefulSet : byKind("StatefulSet")) {
            String serviceName = statefulSet.path("spec").path("serviceName").asText();
            JsonNode governing = services.stream().filter(s -> name(s).equals(serviceName)).findFirst().orElse(null);
            assertThat(governing).as(name(statefulSet) + ": its serviceName " + serviceName + " is a Service here").isNotNull();
            assertThat(labels(statefulSet.path("spec").path("template").path("metadata").path("labels")))
                    .containsAllEntriesOf(labels(governing.path("spec").path("selector")));
            assertThat(statefulSet.path("spec").path("volumeClaimTemplates")).as(name(statefulSet) + ": a volume each")
                    .isNotEmpty();
        }
        JsonNode leafService = services.stream().filter(s -> name(s).equals("hedgerow-leaf")).findFirst().orElseThrow();
        assertThat(leafService.path("spec").path("clusterIP").asText()).as("the leaves' Service is headless").isEqualTo("None");
        // A leaf is ready only once a root assigned it partitions; the root finds it through this name.
        assertThat(leafService.path("spec").path("publishNotReadyAddresses").asBoolean())
                .as("hedgerow-leaf publishes not-ready addresses").isTrue();
    }

    @Test
    void probesAskForServedPathsOnTheHttpPortTheProcessListensOn() throws IOException {
        int probes = 0;
        for (JsonNode workload : workloads()) {
            for (JsonNode container : workload.path("spec").path("template").path("spec").path("containers")) {
                String where = name(workload) + "/" + container.path("name").asText();
                Map<String, Integer> ports = containerPorts(workload);
                CommandLine command = parseContainer(container);
                for (String kind : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                    JsonNode probe = container.path(kind);
                    if (probe.isMissingNode()) {
                        continue;
                    }
                    if (!probe.has("httpGet")) {
                        assertThat(command.getCommandName()).as(where + ": only ZooKeeper is probed over TCP").isEqualTo("zk");
                        assertThat(ports).containsKey(probe.path("tcpSocket").path("port").asText());
                        continue;
                    }
                    String path = probe.path("httpGet").path("path").asText();
                    assertThat(path).as(where + ": " + kind).isEqualTo(kind.equals("readinessProbe") ? "/ready" : "/health");
                    String portName = probe.path("httpGet").path("port").asText();
                    assertThat(ports).as(where + ": " + kind + " port").containsKey(portName);
                    int port = ports.get(portName);
                    switch (command.getCommandName()) {
                        case "root" -> {
                            assertThat(RootStatusPaths.serves(path)).as("the root serves " + path).isTrue();
                            assertThat(port).as(where + ": probe port is root --port").isEqualTo(value(command, "--port"));
                        }
                        case "leaf" -> {
                            assertThat(leafAnswers(path)).as("a ready leaf answers GET " + path).isEqualTo(200);
                            assertThat(port).as(where + ": probe port is leaf --http-port").isEqualTo(value(command, "--http-port"));
                        }
                        default -> throw new AssertionError(where + ": an HTTP probe on '" + command.getCommandName() + "'");
                    }
                    probes++;
                }
            }
        }
        assertThat(probes).as("HTTP probes checked (startup, liveness, readiness of root and leaf)").isEqualTo(6);
        // The checks bite: neither serves a path it does not have.
        assertThat(RootStatusPaths.serves("/healthz")).isFalse();
        assertThat(leafAnswers("/healthz")).isEqualTo(404);
    }

    @Test
    void containerCommandLinesParseAndListenWhereTheManifestsSay() throws IOException {
        JsonNode leafSet = byKind("StatefulSet").stream().filter(s -> name(s).equals("hedgerow-leaf")).findFirst().orElseThrow();
        CommandLine leaf = parseContainer(containers(leafSet).getFirst());
        assertThat(leaf.getCommandName()).isEqualTo("leaf");
        assertThat(value(leaf, "--host")).as("a leaf listens beyond its pod").isEqualTo("0.0.0.0");
        assertThat(value(leaf, "--port")).as("leaf --port").isEqualTo(containerPorts(leafSet).get("leaf"));
        assertThat(value(leaf, "--http-port")).as("leaf --http-port").isEqualTo(containerPorts(leafSet).get("http"));
        CommandLine index = parseContainer(leafSet.path("spec").path("template").path("spec").path("initContainers").get(0));
        assertThat(index.getCommandName()).isEqualTo("index");
        assertThat(value(index, "--out")).as("the init container builds the index the leaf serves")
                .hasToString(String.valueOf(value(leaf, "--index")));

        JsonNode rootDeployment = byKind("Deployment").stream().filter(d -> name(d).equals("hedgerow-root")).findFirst().orElseThrow();
        CommandLine root = parseContainer(containers(rootDeployment).getFirst());
        assertThat(root.getCommandName()).isEqualTo("root");
        assertThat(value(root, "--port")).as("the root's HTTP port is the code's default")
                .isEqualTo(Integer.parseInt(defaultOf("root", "--port")))
                .isEqualTo(containerPorts(rootDeployment).get("http"));
        assertThat(value(root, "--host")).isEqualTo("0.0.0.0");
        // root.leaves names every leaf pod once, by its stable name under the governing Service, at its port.
        int replicas = leafSet.path("spec").path("replicas").asInt();
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < replicas; i++) {
            expected.add(name(leafSet) + "-" + i + "." + leafSet.path("spec").path("serviceName").asText() + ":"
                    + value(leaf, "--port"));
        }
        @SuppressWarnings("unchecked")
        List<String> leaves = (List<String>) value(root, "--leaves");
        assertThat(leaves).allSatisfy(LeafAddress::parse);
        assertThat(new TreeSet<>(leaves)).as("root.leaves").isEqualTo(expected);
        assertThat(value(root, "--cluster-secret-file")).as("roots and leaves share the secret's file")
                .hasToString(String.valueOf(value(leaf, "--cluster-secret-file")));

        JsonNode zkSet = byKind("StatefulSet").stream().filter(s -> name(s).equals("hedgerow-zk")).findFirst().orElseThrow();
        CommandLine zk = parseContainer(containers(zkSet).getFirst());
        assertThat(zk.getCommandName()).isEqualTo("zk");
        assertThat(value(zk, "--port")).isEqualTo(EmbeddedZooKeeper.DEFAULT_PORT).isEqualTo(containerPorts(zkSet).get("client"));
    }

    @Test
    void environmentVariablesAreOnesHedgerowReads() throws IOException {
        Set<String> known = knownEnvironment();
        List<String> named = new ArrayList<>();
        for (JsonNode workload : workloads()) {
            JsonNode spec = workload.path("spec").path("template").path("spec");
            for (JsonNode container : concat(spec.path("containers"), spec.path("initContainers"))) {
                Map<String, String> env = new LinkedHashMap<>();
                for (JsonNode variable : container.path("env")) {
                    String name = variable.path("name").asText();
                    if (name.startsWith("HEDGEROW_")) {
                        named.add(name);
                        assertThat(known).as(name(workload) + ": " + name + " is read by bin/hedgerow or a command").contains(name);
                    }
                    env.put(name, variable.path("value").asText(""));
                }
                for (String role : ConfigFile.JVM_ROLES) {
                    JvmOptions.resolve(role, env, null); // throws on options that are not options
                }
            }
        }
        for (SystemdUnit unit : units()) {
            for (String name : unit.environment().keySet()) {
                if (name.startsWith("HEDGEROW_")) {
                    named.add(name);
                    assertThat(known).as(unit.path() + ": " + name).contains(name);
                }
            }
        }
        assertThat(named).contains("HEDGEROW_LEAF_JVM", "HEDGEROW_ROOT_JVM", "HEDGEROW_ADMIN_TOKEN", "HEDGEROW_DATA");
    }

    // --- Configuration files ------------------------------------------------------------------------

    @Test
    void theConfigurationFilesLoadWithHedgerowsParser() throws IOException {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());
        for (Path file : List.of(configMapFile(), repository().resolve("root-server/src/dist/conf/hedgerow.yaml"),
                repository().resolve("root-server/src/dist/systemd/hedgerow.yaml"))) {
            ConfigFile config = ConfigFile.load(file, keys);
            assertThat(config.values()).as(file + ": keys set").isNotEmpty();
        }
        // The dist's own conf/ sets the same defaults as the code, so that it changes nothing until edited.
        ConfigFile dist = ConfigFile.load(repository().resolve("root-server/src/dist/conf/hedgerow.yaml"), keys);
        assertThat(dist.value("root.port")).isEqualTo(defaultOf("root", "--port"));
        for (String role : ConfigFile.JVM_ROLES) {
            assertThat(dist.jvm().get(role)).as("jvm." + role).isEqualTo(JvmOptions.DEFAULTS.get(role));
        }
    }

    @Test
    void aWrongKeyOrFlagFailsTheseChecks() throws IOException {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());
        Path typo = scratch.resolve("typo.yaml");
        Files.writeString(typo, Files.readString(configMapFile()).replace("drain-timeout:", "drain-timout:"));
        assertThatThrownBy(() -> ConfigFile.load(typo, keys)).hasMessageContaining("unknown key 'leaf.drain-timout'");
        assertThatThrownBy(() -> parse(List.of("leaf", "--config", CONFIG_PATH, "--index", "/x", "--http-prot", "9101"), Map.of(),
                configMapFile())).isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--http-prot");
        assertThatThrownBy(() -> parse(List.of("root", "--config", CONFIG_PATH), Map.of(), typo))
                .hasMessageContaining("leaf.drain-timout");
    }

    // --- systemd --------------------------------------------------------------------------------

    @Test
    void systemdUnitsRunTheDistributionsLauncherWithValidCommandLines() throws IOException {
        Path config = repository().resolve("root-server/src/dist/systemd/hedgerow.yaml");
        assertThat(repository().resolve("root-server/src/dist/bin/hedgerow")).as("the tarball's bin/hedgerow").exists();
        SystemdUnit rootUnit = SystemdUnit.read(systemd().resolve("hedgerow-root.service"));
        SystemdUnit leafUnit = SystemdUnit.read(systemd().resolve("hedgerow-leaf@.service"));
        for (SystemdUnit unit : List.of(rootUnit, leafUnit)) {
            assertThat(unit.value("Service.User")).as(unit.path() + ": a dedicated user").isEqualTo("hedgerow");
            assertThat(unit.value("Service.Restart")).isEqualTo("on-failure");
            assertThat(Long.parseLong(unit.value("Service.LimitNOFILE"))).isGreaterThanOrEqualTo(65536);
            assertThat(unit.value("Install.WantedBy")).isEqualTo("multi-user.target");
            assertThat(unit.execStart("0").getFirst()).as(unit.path() + ": ExecStart").isEqualTo(LAUNCHER);
        }
        CommandLine root = parse(rootUnit.execStart("0").subList(1, rootUnit.execStart("0").size()),
                rootUnit.environment(), config);
        assertThat(root.getCommandName()).isEqualTo("root");
        assertThat(value(root, "--port")).isEqualTo(Integer.parseInt(defaultOf("root", "--port")));
        assertThat(value(root, "--host")).isEqualTo("0.0.0.0");

        CommandLine leaf = parse(leafUnit.execStart("0").subList(1, leafUnit.execStart("0").size()),
                leafUnit.environment(), config);
        assertThat(leaf.getCommandName()).isEqualTo("leaf");
        assertThat(value(leaf, "--node-id")).as("%i is the node id").isEqualTo("0");
        assertThat(value(leaf, "--host")).isEqualTo("0.0.0.0");
        int leafPort = (Integer) value(leaf, "--port");
        assertThat(leafPort).as("leaf --port, fixed for the roots' root.leaves").isPositive()
                .isEqualTo(Integer.parseInt(leafUnit.environment().get("LEAF_PORT")));
        assertThat((Integer) value(leaf, "--http-port")).as("leaf --http-port, fixed for probes and scrapes").isPositive()
                .isNotEqualTo(leafPort);
        @SuppressWarnings("unchecked")
        List<String> leaves = (List<String>) value(root, "--leaves");
        assertThat(leaves).isNotEmpty().allSatisfy(address -> assertThat(LeafAddress.parse(address).port()).isEqualTo(leafPort));
    }

    // --- The container image ------------------------------------------------------------------------

    @Test
    void theImageRunsTheDistributionOnAJre21() throws IOException {
        String containerfile = Files.readString(repository().resolve("root-server/src/dist/container/Containerfile"));
        assertThat(containerfile).containsPattern("(?m)^FROM [^\\s]+:21-jre\\s*$")
                .contains("ADD target/hedgerow-${VERSION}.tar.gz /opt/")
                .contains("ENTRYPOINT [\"" + LAUNCHER + "\"]");
        Matcher expose = Pattern.compile("(?m)^EXPOSE (.+)$").matcher(containerfile);
        assertThat(expose.find()).as("EXPOSE").isTrue();
        Set<Integer> exposed = new TreeSet<>();
        for (String port : expose.group(1).strip().split("\\s+")) {
            exposed.add(Integer.parseInt(port));
        }
        Set<Integer> used = new TreeSet<>();
        for (JsonNode workload : workloads()) {
            used.addAll(containerPorts(workload).values());
        }
        assertThat(exposed).as("EXPOSE names the manifests' container ports").isEqualTo(used);
        Matcher uid = Pattern.compile("--uid (\\d+)").matcher(containerfile);
        assertThat(uid.find()).as("a fixed uid").isTrue();
        for (JsonNode workload : workloads()) {
            JsonNode security = workload.path("spec").path("template").path("spec").path("securityContext");
            assertThat(security.path("runAsUser").asText()).as(name(workload) + ": runAsUser").isEqualTo(uid.group(1));
            assertThat(security.path("fsGroup").asText()).as(name(workload) + ": fsGroup").isEqualTo(uid.group(1));
        }
    }

    // --- Helpers ------------------------------------------------------------------------------------

    private static Path repository() {
        return ConfigReferenceTest.repository();
    }

    private static Path kubernetes() {
        return repository().resolve("root-server/src/dist/kubernetes");
    }

    private static Path systemd() {
        return repository().resolve("root-server/src/dist/systemd");
    }

    private static List<Path> manifestFiles() throws IOException {
        try (Stream<Path> files = Files.list(kubernetes())) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        try (MappingIterator<JsonNode> documents = new YAMLMapper().readerFor(JsonNode.class).readValues(file.toFile())) {
            return documents.readAll().stream().filter(d -> d != null && !d.isNull() && !d.isMissingNode()).toList();
        }
    }

    private static List<JsonNode> byKind(String kind) throws IOException {
        List<JsonNode> found = new ArrayList<>();
        for (Path file : manifestFiles()) {
            for (JsonNode document : documents(file)) {
                if (document.path("kind").asText().equals(kind)) {
                    found.add(document);
                }
            }
        }
        return found;
    }

    private static List<JsonNode> workloads() throws IOException {
        List<JsonNode> workloads = new ArrayList<>(byKind("StatefulSet"));
        workloads.addAll(byKind("Deployment"));
        assertThat(workloads).hasSize(3);
        return workloads;
    }

    private static String name(JsonNode resource) {
        return resource.path("metadata").path("name").asText();
    }

    private static Map<String, String> labels(JsonNode mapping) {
        Map<String, String> labels = new LinkedHashMap<>();
        mapping.properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }

    private static List<JsonNode> containers(JsonNode workload) {
        List<JsonNode> containers = new ArrayList<>();
        workload.path("spec").path("template").path("spec").path("containers").forEach(containers::add);
        return containers;
    }

    private static List<JsonNode> concat(JsonNode a, JsonNode b) {
        List<JsonNode> all = new ArrayList<>();
        a.forEach(all::add);
        b.forEach(all::add);
        return all;
    }

    /** Each named container port of the workload's pods. */
    private static Map<String, Integer> containerPorts(JsonNode workload) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (JsonNode container : containers(workload)) {
            for (JsonNode port : container.path("ports")) {
                ports.put(port.path("name").asText(), port.path("containerPort").asInt());
            }
        }
        return ports;
    }

    /** The ConfigMap's hedgerow.yaml, written out as the file the pods mount. */
    private static Path configMapFile() throws IOException {
        JsonNode configMap = documents(kubernetes().resolve("configmap.yaml")).getFirst();
        Path file = Files.createTempFile("hedgerow-configmap", ".yaml");
        file.toFile().deleteOnExit();
        Files.writeString(file, configMap.path("data").path("hedgerow.yaml").asText());
        return file;
    }

    /** The container's command line ({@code args}, after the image's entry point) as Hedgerow parses it. */
    private static CommandLine parseContainer(JsonNode container) throws IOException {
        Map<String, String> env = new HashMap<>();
        for (JsonNode variable : container.path("env")) {
            // A field reference (the pod's name) gets a value of the kind it would have.
            env.put(variable.path("name").asText(), variable.has("value") ? variable.path("value").asText() : "hedgerow-leaf-0");
        }
        List<String> args = new ArrayList<>();
        for (JsonNode arg : container.path("args")) {
            Matcher reference = POD_REFERENCE.matcher(arg.asText());
            args.add(reference.replaceAll(m -> Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group()))));
        }
        return parse(args, env, configMapFile());
    }

    /**
     * Parses {@code args} (a command and its flags) with Hedgerow's command line, {@code --config
     * /etc/hedgerow/hedgerow.yaml} read from {@code config}, and returns the command parsed: its options
     * hold the values it would run with (flag, then file, then default).
     */
    private static CommandLine parse(List<String> args, Map<String, String> env, Path config) {
        List<String> rewritten = new ArrayList<>(args);
        int flag = rewritten.indexOf(ConfigKeys.CONFIG_OPTION);
        if (flag >= 0) {
            assertThat(rewritten.get(flag + 1)).as("the configuration file's path").isEqualTo(CONFIG_PATH);
            rewritten.set(flag + 1, config.toString());
        }
        CommandLine.ParseResult result = HedgerowCli.newCommandLine(env).parseArgs(rewritten.toArray(String[]::new));
        while (result.hasSubcommand()) {
            result = result.subcommand();
        }
        return result.commandSpec().commandLine();
    }

    private static Object value(CommandLine command, String option) {
        CommandLine.Model.OptionSpec spec = command.getCommandSpec().findOption(option);
        assertThat(spec).as(command.getCommandName() + " " + option).isNotNull();
        return spec.getValue();
    }

    /** The default the code declares for {@code command}'s {@code option}. */
    private static String defaultOf(String command, String option) {
        return HedgerowCli.newCommandLine(Map.of()).getSubcommands().get(command).getCommandSpec().findOption(option)
                .defaultValue();
    }

    /** Every HEDGEROW_* variable the distribution's launcher or a command's help names. */
    private static Set<String> knownEnvironment() throws IOException {
        Set<String> known = new TreeSet<>();
        collect(Files.readString(repository().resolve("root-server/src/dist/bin/hedgerow")), known);
        collect(Files.readString(repository().resolve("root-server/src/dist/bin/java-runtime.sh")), known);
        List<CommandLine> pending = new ArrayList<>(List.of(HedgerowCli.newCommandLine(Map.of())));
        while (!pending.isEmpty()) {
            CommandLine command = pending.removeLast();
            collect(command.getUsageMessage(CommandLine.Help.Ansi.OFF), known);
            pending.addAll(command.getSubcommands().values());
        }
        return known;
    }

    private static void collect(String text, Set<String> into) {
        Matcher name = ENV_NAME.matcher(text);
        while (name.find()) {
            into.add(name.group());
        }
    }

    private static List<SystemdUnit> units() throws IOException {
        return List.of(SystemdUnit.read(systemd().resolve("hedgerow-root.service")),
                SystemdUnit.read(systemd().resolve("hedgerow-leaf@.service")));
    }

    private static int leafAnswers(String path) {
        try {
            URI uri = URI.create("http://127.0.0.1:" + leafHttp.address().getPort() + path);
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " on the leaf's HTTP server: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
