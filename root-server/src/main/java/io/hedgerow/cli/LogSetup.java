package io.hedgerow.cli;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Logging as a command line's {@code main} sets it up, before anything logs: the line format (text
 * or JSON lines, from the {@value #OPTION} option or the {@value #VARIABLE} environment variable) and
 * the bridge that sends {@code java.util.logging} to SLF4J. Everything else is in common's {@code
 * logback.xml}; {@code System.Logger} reaches SLF4J through slf4j-jdk-platform-logging without help.
 *
 * <p>The option is read here, ahead of picocli, because Logback configures itself the first time
 * anything asks for a logger, and that happens while picocli builds the commands. Picocli declares
 * the same option ({@link HedgerowCli}) so that it is documented, checked and accepted everywhere.
 */
public final class LogSetup {
    /** The global option, accepted before or after the subcommand. */
    public static final String OPTION = "--log-format";
    /** The environment variable (and the system property logback.xml reads). */
    public static final String VARIABLE = "HEDGEROW_LOG_FORMAT";
    static final List<String> FORMATS = List.of("text", "json");

    private LogSetup() {
    }

    /**
     * Sets the log format for logback.xml and installs the java.util.logging bridge.
     *
     * @throws IllegalArgumentException when the format named is neither text nor json
     */
    public static void apply(String[] args, Map<String, String> environment) {
        System.setProperty(VARIABLE, format(args, environment));
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    /**
     * The format asked for: the last {@value #OPTION} in {@code args} (as {@code --log-format json} or
     * {@code --log-format=json}, before any {@code --}), else the environment's, else text.
     */
    static String format(String[] args, Map<String, String> environment) {
        String chosen = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            if (args[i].equals(OPTION) && i + 1 < args.length) {
                chosen = args[++i];
            } else if (args[i].startsWith(OPTION + "=")) {
                chosen = args[i].substring(OPTION.length() + 1);
            }
        }
        if (chosen == null) {
            chosen = environment.getOrDefault(VARIABLE, "text");
        }
        String format = chosen.strip().toLowerCase(Locale.ROOT);
        if (!FORMATS.contains(format)) {
            throw new IllegalArgumentException("log format: '" + chosen + "' (expected: text or json, from "
                    + OPTION + " or " + VARIABLE + ")");
        }
        return format;
    }
}
