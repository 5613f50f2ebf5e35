package io.varpulis.autoconfigure;

import io.varpulis.dlq.DeadLetterSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * The dead-letter console's settings, {@code varpulis.dlq.*}.
 */
@ConfigurationProperties(prefix = "varpulis.dlq")
public class DeadLetterProperties {

    /**
     * Whether replay and purge are allowed. Off by default: listing parked events is
     * harmless, re-publishing or deleting them is an operator decision, so a node must
     * opt in.
     */
    private boolean writeEnabled = false;

    /** Parked events per page when a list request gives no limit. */
    private int pageSize = 50;

    /**
     * Most parked events one list request may ask for; each costs one JetStream API
     * request.
     */
    private int maxPageSize = 500;

    /**
     * Most bytes of parked events one list page holds (the events' JSON), besides its
     * count: a page ends before the event that would pass it, and says so;
     * {@code next_before} gets the rest. Bounds what a list costs the node's heap and the
     * client, whatever the events' size (one page always holds at least one event).
     */
    private DataSize maxPageBytes = DataSize.ofMegabytes(4);

    /**
     * Payloads longer than this are cut in a list page ({@code payload_truncated: true},
     * with their full {@code payload_bytes}); showing one event by its sequence gives it
     * whole.
     */
    private DataSize maxPayloadShown = DataSize.ofKilobytes(64);

    /**
     * How long a replay waits for each event's PubAck; an event not confirmed in time
     * stays parked and the replay stops there, so the events after it keep their order.
     */
    private Duration replayTimeout = Duration.ofSeconds(10);

    /**
     * Most events one replay request re-publishes (by unit or all); the report says when
     * more are left, and the operator repeats the request. Bounds how long one HTTP
     * request runs.
     */
    private int maxReplayBatch = 1000;

    /**
     * @return the settings the dead-letter console receives
     */
    public DeadLetterSettings toSettings() {
        return new DeadLetterSettings(writeEnabled, pageSize, maxPageSize, maxPageBytes, maxPayloadShown, replayTimeout,
                maxReplayBatch);
    }

    public boolean isWriteEnabled() {
        return writeEnabled;
    }

    public void setWriteEnabled(boolean writeEnabled) {
        this.writeEnabled = writeEnabled;
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        this.pageSize = pageSize;
    }

    public int getMaxPageSize() {
        return maxPageSize;
    }

    public void setMaxPageSize(int maxPageSize) {
        this.maxPageSize = maxPageSize;
    }

    public DataSize getMaxPageBytes() {
        return maxPageBytes;
    }

    public void setMaxPageBytes(DataSize maxPageBytes) {
        this.maxPageBytes = maxPageBytes;
    }

    public DataSize getMaxPayloadShown() {
        return maxPayloadShown;
    }

    public void setMaxPayloadShown(DataSize maxPayloadShown) {
        this.maxPayloadShown = maxPayloadShown;
    }

    public Duration getReplayTimeout() {
        return replayTimeout;
    }

    public void setReplayTimeout(Duration replayTimeout) {
        this.replayTimeout = replayTimeout;
    }

    public int getMaxReplayBatch() {
        return maxReplayBatch;
    }

    public void setMaxReplayBatch(int maxReplayBatch) {
        this.maxReplayBatch = maxReplayBatch;
    }

}
