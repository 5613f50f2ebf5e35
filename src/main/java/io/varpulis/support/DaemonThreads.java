package io.varpulis.support;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The one way this project makes background threads: daemon threads with a recognisable name, so a timer or a
 * settling pool never keeps a JVM alive and shows up by name in a thread dump.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /**
     * @param prefix the thread name prefix, e.g. {@code varpulis-settle}; a {@code -N} suffix is added
     * @return a factory of daemon threads
     */
    public static CustomizableThreadFactory named(String prefix) {
        CustomizableThreadFactory threads = new CustomizableThreadFactory(prefix + "-");
        threads.setDaemon(true);
        return threads;
    }
}
