package io.varpulis.nats;

/**
 * A reason the application must not start, with the action that fixes it. Spring Boot prints both through
 * {@link NatsStartupFailureAnalyzer} and the process exits non-zero.
 */
public class NatsStartupException extends RuntimeException {

    private final String action;

    /**
     * @param description what is wrong, naming the server, property or object concerned
     * @param action      what the operator does about it
     * @param cause       the underlying error, or {@code null}
     */
    public NatsStartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /**
     * @return what the operator does to fix it
     */
    public String getAction() {
        return action;
    }
}
