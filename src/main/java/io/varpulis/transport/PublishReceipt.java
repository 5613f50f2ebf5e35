package io.varpulis.transport;

/**
 * What the substrate confirmed about a publish.
 *
 * @param subject the subject published to
 * @param stream the stream that stored it (JetStream), or {@code null} on core where
 * nothing is stored
 * @param sequence the stream sequence it was stored at, 0 on core
 * @param duplicate {@code true} when JetStream recognised the {@code Nats-Msg-Id} inside
 * the duplicate window and kept the earlier copy instead of storing it again
 */
public record PublishReceipt(String subject, String stream, long sequence, boolean duplicate) {

    /**
     * @return {@code true} when a stream stored the message (JetStream)
     */
    public boolean stored() {
        return stream != null;
    }
}
