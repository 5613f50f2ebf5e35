package io.varpulis.autoconfigure.node;

import io.varpulis.web.ApiLimits;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * A node's HTTP security settings, {@code varpulis.security.*} (SPEC section 10). Who may
 * call the node is Spring Boot's own business ({@code spring.security.user.*},
 * {@code spring.security.oauth2.resourceserver.jwt.*}); these settings bound what a
 * caller may send and say whether Prometheus may scrape without credentials.
 */
@ConfigurationProperties(prefix = "varpulis.security")
public class NodeSecurityProperties {

    /**
     * Largest request body the node reads. A larger one is refused with 413 before it is
     * read: an event that can never be stored must not be answered "503, retry". An
     * injected event over the NATS server's {@code max_payload} (headers included) is 413
     * too; a limit above {@code max_payload} is warned of at startup.
     */
    private DataSize maxRequestSize = DataSize.ofMegabytes(1);

    /** Longest event type an injected event may carry, in characters; longer is a 400. */
    private int maxEventTypeLength = 256;

    /** Longest field name an injected event may carry, in characters; longer is a 400. */
    private int maxFieldNameLength = 256;

    /**
     * Whether {@code /actuator/prometheus} answers without credentials. Allowed only on a
     * separate management port ({@code management.server.port}), which a NetworkPolicy
     * opens to the Prometheus namespace alone; on the application port startup fails.
     */
    private boolean openPrometheus = false;

    /**
     * @return what the operator API accepts from a caller
     */
    public ApiLimits toApiLimits() {
        return new ApiLimits(maxRequestSize, maxEventTypeLength, maxFieldNameLength);
    }

    public DataSize getMaxRequestSize() {
        return maxRequestSize;
    }

    public void setMaxRequestSize(DataSize maxRequestSize) {
        this.maxRequestSize = maxRequestSize;
    }

    public int getMaxEventTypeLength() {
        return maxEventTypeLength;
    }

    public void setMaxEventTypeLength(int maxEventTypeLength) {
        this.maxEventTypeLength = maxEventTypeLength;
    }

    public int getMaxFieldNameLength() {
        return maxFieldNameLength;
    }

    public void setMaxFieldNameLength(int maxFieldNameLength) {
        this.maxFieldNameLength = maxFieldNameLength;
    }

    public boolean isOpenPrometheus() {
        return openPrometheus;
    }

    public void setOpenPrometheus(boolean openPrometheus) {
        this.openPrometheus = openPrometheus;
    }

}
