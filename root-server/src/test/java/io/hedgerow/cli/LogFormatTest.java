package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.joran.spi.JoranException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The log line formats of common's logback.xml, read as Logback reads it, each line encoded by the
 * encoder of the appender the format selects: text lines start with the date and time in UTC, JSON
 * lines parse as JSON with the message, the level, the logger and the request id; and how the
 * command line picks the format.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LogFormatTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void jsonLinesParseAsJsonWithTheMessageLevelLoggerTimeAndRequestId() throws Exception {
        LoggingEvent event = event("a \"quoted\" message\nover two lines: {}", "42", Map.of("request_id", "r1-2"));

        String line = encode("json", event);

        assertThat(line).endsWith("\n").doesNotContain("\n{").hasLineCount(1);
        JsonNode json = JSON.readTree(line);
        assertThat(json.get("formattedMessage").asText()).isEqualTo("a \"quoted\" message\nover two lines: 42");
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("loggerName").asText()).isEqualTo("io.hedgerow.root.RootServer");
        assertThat(json.get("timestamp").asLong()).isEqualTo(1_795_841_000_123L);
        assertThat(json.get("mdc").get("request_id").asText()).isEqualTo("r1-2");
    }

    @Test
    void textLinesStartWithTheDateInUtcAndNameTheRequestIdWhenThereIsOne() throws Exception {
        assertThat(encode("text", event("served {}", "42", Map.of("request_id", "r1-2"))))
                .isEqualTo("2026-11-28T04:43:20.123Z WARN  io.hedgerow.root.RootServer [r1-2] - served 42\n");
        assertThat(encode("text", event("served {}", "42", Map.of())))
                .isEqualTo("2026-11-28T04:43:20.123Z WARN  io.hedgerow.root.RootServer - served 42\n");
    }

    @Test
    void theOptionWinsOverTheEnvironmentWhichWinsOverText() {
        Map<String, String> json = Map.of(LogSetup.VARIABLE, "json");
        assertThat(LogSetup.format(new String[] {"root", "--port", "8080"}, Map.of())).isEqualTo("text");
        assertThat(LogSetup.format(new String[] {"root"}, json)).isEqualTo("json");
        assertThat(LogSetup.format(new String[] {"root", "--log-format", "text"}, json)).isEqualTo("text");
        assertThat(LogSetup.format(new String[] {"--log-format=JSON", "local"}, Map.of())).isEqualTo("json");
        // After "--" it is an argument, not the option.
        assertThat(LogSetup.format(new String[] {"root", "--", "--log-format", "json"}, Map.of())).isEqualTo("text");
    }

    @Test
    void anUnknownFormatIsRefusedWithTheFormatsThereAre() {
        assertThatThrownBy(() -> LogSetup.format(new String[] {"--log-format", "xml"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log format: 'xml' (expected: text or json, from --log-format or HEDGEROW_LOG_FORMAT)");
    }

    @Test
    void theCommandLineAcceptsTheOptionAfterAnySubcommand() {
        var parsed = HedgerowCli.newCommandLine().parseArgs("simulate", "--log-format", "json", "--help");
        assertThat(parsed.subcommand().matchedOptionValue("--log-format", "")).isEqualTo("json");
    }

    /** One line as the appender of {@code format} in a context configured from logback.xml encodes it. */
    @SuppressWarnings("unchecked")
    private static String encode(String format, LoggingEvent event) throws JoranException {
        LoggerContext context = new LoggerContext();
        try {
            context.putProperty(LogSetup.VARIABLE, format);
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
            Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
            var appender = (OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent>) root.getAppender(
                    "CONSOLE_" + format);
            assertThat(appender).as("the appender logback.xml names for %s", format).isNotNull();
            event.setLoggerContext(context);
            return new String(appender.getEncoder().encode(event), StandardCharsets.UTF_8);
        } finally {
            context.stop();
        }
    }

    private static LoggingEvent event(String message, Object argument, Map<String, String> mdc) {
        LoggingEvent event = new LoggingEvent();
        event.setLoggerName("io.hedgerow.root.RootServer");
        event.setLevel(Level.WARN);
        event.setMessage(message);
        event.setArgumentArray(new Object[] {argument});
        event.setThreadName("main");
        event.setTimeStamp(1_795_841_000_123L);
        event.setMDCPropertyMap(mdc);
        return event;
    }
}
