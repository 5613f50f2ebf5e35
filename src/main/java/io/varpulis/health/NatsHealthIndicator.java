package io.varpulis.health;

import io.nats.client.Connection;
import io.nats.client.api.ServerInfo;
import io.varpulis.nats.Substrate;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health component {@code nats}: UP while the connection is connected, DOWN while it is
 * disconnected or reconnecting. Details: {@code status}, {@code server} (URL),
 * {@code serverName}, {@code version}, {@code substrate}. Belongs to the readiness group,
 * never to liveness: a NATS outage must make a pod unready, not restart it.
 */
public class NatsHealthIndicator extends AbstractHealthIndicator {

    private final Connection connection;

    private final Substrate substrate;

    /**
     * @param connection the connection to report on
     * @param substrate the configured substrate, shown in the details
     */
    public NatsHealthIndicator(Connection connection, Substrate substrate) {
        super("NATS health check failed");
        this.connection = connection;
        this.substrate = substrate;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Connection.Status status = connection.getStatus();
        if (status == Connection.Status.CONNECTED) {
            builder.up();
        }
        else {
            builder.down();
        }
        builder.withDetail("status", status.name()).withDetail("substrate", substrate.id());
        ServerInfo info = connection.getServerInfo();
        if (connection.getConnectedUrl() != null) {
            builder.withDetail("server", connection.getConnectedUrl());
        }
        if (info != null) {
            builder.withDetail("serverName", info.getServerName()).withDetail("version", info.getVersion());
        }
    }

}
