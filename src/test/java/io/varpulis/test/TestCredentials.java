package io.varpulis.test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The credentials test nodes run with: the jar's user {@code varpulis} (role
 * {@code ADMIN}) with a fixed password, set the Spring Boot way
 * ({@code spring.security.user.password}), so that tests of the operator API keep their
 * assertions while a node never runs open (SPEC section 10).
 */
public final class TestCredentials {

    /** The user the jar's application.yml names. */
    public static final String USER = "varpulis";

    /** The password test nodes are given. */
    public static final String PASSWORD = "test-admin-password";

    /** The node argument that sets it. */
    public static final String PASSWORD_ARGUMENT = "--spring.security.user.password=" + PASSWORD;

    private TestCredentials() {
    }

    /**
     * @param user a user name
     * @param password its password
     * @return the {@code Authorization} header value of HTTP basic authentication
     */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return the {@code Authorization} header value for {@link #USER} and
     * {@link #PASSWORD}
     */
    public static String adminBasic() {
        return basic(USER, PASSWORD);
    }

}
