package io.varpulis.nats;

/**
 * A reason the application must not start, with the action that fixes it. The message
 * holds both (for users without Spring); Spring Boot prints them apart through the
 * auto-configuration's failure analyzer and the process exits non-zero.
 */
public class NatsStartupException extends RuntimeException {

    /** What is wrong, naming the server, property or object concerned. */
    private final String description;

    /** What the operator does about it. */
    private final String action;

    /**
     * @param description what is wrong, naming the server, property or object concerned
     * @param action what the operator does about it
     * @param cause the underlying error, or {@code null}
     */
    public NatsStartupException(String description, String action, Throwable cause) {
        super(description + " Fix: " + action, cause);
        this.description = description;
        this.action = action;
    }

    /**
     * @return what is wrong, without the fix
     */
    public String getDescription() {
        return description;
    }

    /**
     * @return what the operator does to fix it
     */
    public String getAction() {
        return action;
    }

}
