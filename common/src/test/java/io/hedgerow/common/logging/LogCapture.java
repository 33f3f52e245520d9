package io.hedgerow.common.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one logger logs during a test, through a Logback {@link ListAppender} attached to it, at the
 * level the test asks for (the logger's level is restored on {@link #close()}). Events are captured
 * on the thread that logs them, before any asynchronous appender of the configuration; the
 * configuration's own appenders still get them.
 *
 * <p><b>Assumptions and guarantees.</b> Loggers log from any thread; {@link #events()} may be read
 * meanwhile: it copies the list under the appender's lock, which {@code ListAppender} appends under.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level previousLevel;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(String loggerName, Level level) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        previousLevel = logger.getLevel();
        appender.setContext(logger.getLoggerContext());
        appender.setName("test-capture-" + loggerName);
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(level);
    }

    /** Captures what {@code loggerName} (and the loggers under it) log at {@code level} or above. */
    public static LogCapture of(String loggerName, Level level) {
        return new LogCapture(loggerName, level);
    }

    public static LogCapture of(Class<?> type, Level level) {
        return of(type.getName(), level);
    }

    /** The events so far, in the order logged. */
    public List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    /** The formatted messages so far, in the order logged. */
    public List<String> messages() {
        return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(previousLevel);
        appender.stop();
    }
}
