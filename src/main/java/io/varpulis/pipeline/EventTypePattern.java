package io.varpulis.pipeline;

/**
 * A route's event-type pattern (SPEC section 6): {@code *} matches every type,
 * {@code Prefix*} every type starting with the prefix, anything else exactly that type.
 */
public final class EventTypePattern {

    private EventTypePattern() {
    }

    /**
     * @param pattern the pattern
     * @param eventType an event's type
     * @return {@code true} when the type matches
     */
    public static boolean matches(String pattern, String eventType) {
        if (pattern.equals("*")) {
            return true;
        }
        if (pattern.endsWith("*")) {
            return eventType.startsWith(pattern.substring(0, pattern.length() - 1));
        }
        return pattern.equals(eventType);
    }

    /**
     * @param pattern a pattern
     * @throws IllegalArgumentException when it is blank or has a {@code *} anywhere but
     * at the end
     */
    public static void validate(String pattern) {
        if (pattern == null || pattern.isBlank()) {
            throw new IllegalArgumentException("an event type pattern must not be blank");
        }
        int star = pattern.indexOf('*');
        if (star >= 0 && star != pattern.length() - 1) {
            throw new IllegalArgumentException("event type pattern '" + pattern + "' may only end with '*' "
                    + "(use *, Prefix* or an exact type)");
        }
    }

}
