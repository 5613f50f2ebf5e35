package io.varpulis.jetstream.eviction;

import io.nats.client.api.StreamInfo;

/**
 * What the server said about a stream nothing consumes ({@code VARPULIS_DLQ}) at one
 * moment.
 *
 * @param created when the stream was created: another value is another stream
 * @param first its first sequence
 * @param last its last sequence
 * @param messages the messages it holds
 * @param maxMessages its max_msgs (-1: none)
 */
public record StreamObservation(String created, long first, long last, long messages, long maxMessages) {

    /**
     * @param info the stream's info
     * @return what it says
     */
    public static StreamObservation of(StreamInfo info) {
        return new StreamObservation(String.valueOf(info.getCreateTime()), info.getStreamState().getFirstSequence(),
                info.getStreamState().getLastSequence(), info.getStreamState().getMsgCount(),
                info.getConfiguration().getMaxMsgs());
    }

    /**
     * @param next a later observation
     * @return whether it is of the same stream
     */
    boolean continuedBy(StreamObservation next) {
        return created.equals(next.created) && next.last >= last && next.first >= first;
    }

}
