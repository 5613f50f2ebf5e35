package io.varpulis.dlq;

import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * What the dead-letter console runs with ({@code varpulis.dlq.*}): how large a page may
 * be, and whether and how far replay and purge may go.
 *
 * @param writeEnabled whether replay and purge are allowed
 * @param pageSize parked events per page when a list request gives no limit
 * @param maxPageSize most parked events one list request may ask for
 * @param maxPageBytes most bytes of parked events (their JSON) one list page holds
 * @param maxPayloadShown payloads longer than this are cut in a list page
 * @param replayTimeout how long a replay waits for each PubAck
 * @param maxReplayBatch most parked events one replay request re-publishes
 */
public record DeadLetterSettings(boolean writeEnabled, int pageSize, int maxPageSize, DataSize maxPageBytes,
        DataSize maxPayloadShown, Duration replayTimeout, int maxReplayBatch) {

}
