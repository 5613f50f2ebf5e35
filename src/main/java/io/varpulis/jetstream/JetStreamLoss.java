package io.varpulis.jetstream;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Something the servers acknowledged and no longer hold, as a node finds it (SPEC section
 * 21: never silent): a declared stream, durable consumer or key-value bucket gone, a
 * stream whose last sequence went back, messages this node published and the stream
 * acknowledged that are gone, a consumer's acknowledgements past the stream's end, a
 * pipeline's state bucket gone back. What JetStream forgets that way is what a power loss
 * of servers running without {@code sync_interval: always} loses, or what an operator
 * deleted by hand.
 *
 * @param kind what was lost
 * @param stream the stream (a bucket's {@code KV_} stream for a bucket)
 * @param name the consumer, the subject or the bucket it is about, or empty
 * @param firstSequence the first stream sequence lost, or 0 when unknown
 * @param lastSequence the last stream sequence lost, or 0 when unknown
 * @param messages how many messages that is, or -1 when unknown
 * @param detail one sentence an operator reads, what was found and what happens now
 * @param at when the node found it
 */
public record JetStreamLoss(Kind kind, String stream, String name, long firstSequence, long lastSequence, long messages,
        String detail, Instant at) {

    /** What was lost. */
    public enum Kind {

        /** A declared stream disappeared from the servers. */
        STREAM_GONE,
        /** A durable consumer in use disappeared. */
        CONSUMER_GONE,
        /** A declared key-value bucket (its stream) disappeared. */
        BUCKET_GONE,
        /**
         * A stream's last sequence went below one the node saw before: the messages
         * between are gone.
         */
        STREAM_WENT_BACK,
        /**
         * Messages this node published and the stream acknowledged (PubAck) are gone, per
         * subject (a route edge's).
         */
        PUBLISHED_LOST,
        /**
         * A consumer had acknowledged stream sequences past the stream's last one now.
         */
        ACKED_PAST_END,
        /**
         * A pipeline's state bucket holds less than the pipeline wrote and had confirmed.
         */
        STATE_WENT_BACK;

        /**
         * @return the kind as the meter's tag and the JSON show it ({@code stream-gone},
         * ...)
         */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

    }

    /**
     * @return the loss as the health details show it: {@code {"kind": "stream-gone",
     * "stream": "...", "name": "...", "sequences": "101-2345", "messages": N, "detail":
     * "...", "at": "<RFC 3339>"}}, without what is unknown
     */
    public Map<String, Object> toDetails() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("kind", kind.tag());
        details.put("stream", stream);
        if (!name.isEmpty()) {
            details.put("name", name);
        }
        if (lastSequence > 0) {
            details.put("sequences", firstSequence + "-" + lastSequence);
        }
        if (messages >= 0) {
            details.put("messages", messages);
        }
        details.put("detail", detail);
        details.put("at", at.toString());
        return details;
    }

}
