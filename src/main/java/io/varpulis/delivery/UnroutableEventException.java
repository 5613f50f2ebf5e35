package io.varpulis.delivery;

import io.varpulis.pipeline.RouteEdge;

import java.util.List;

/**
 * An event whose type the route edge it came on does not carry (someone published it
 * straight onto the edge's subject): it is parked on its first delivery with reason
 * {@code unroutable}, never applied.
 */
public class UnroutableEventException extends IllegalArgumentException {

    /**
     * Longest event type quoted in the message; a 10 000-character type is cut, with its
     * length.
     */
    private static final int QUOTED_TYPE_CHARS = 200;

    /**
     * @param eventType the event's type
     * @param edge the edge it was delivered on
     * @param eventTypes the patterns the edge carries
     */
    public UnroutableEventException(String eventType, RouteEdge edge, List<String> eventTypes) {
        super("event type " + quote(eventType) + " is not accepted by route " + edge.from() + "->" + edge.to() + " ("
                + String.join(", ", eventTypes) + ")");
    }

    private static String quote(String eventType) {
        if (eventType.length() <= QUOTED_TYPE_CHARS) {
            return eventType;
        }
        return eventType.substring(0, QUOTED_TYPE_CHARS) + "... (" + eventType.length() + " characters)";
    }

}
