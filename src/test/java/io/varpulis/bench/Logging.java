package io.varpulis.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logback without a configuration file logs everything at DEBUG to the console; a
 * benchmark wants WARN and up.
 */
public final class Logging {

    private Logging() {
    }

    /** Sets the root logger to WARN. */
    public static void warnAndAbove() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    }

}
