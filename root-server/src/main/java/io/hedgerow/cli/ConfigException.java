package io.hedgerow.cli;

/** A configuration file that cannot be used: its message names the file, the key and what was expected. */
final class ConfigException extends RuntimeException {
    ConfigException(String message) {
        super(message);
    }
}
