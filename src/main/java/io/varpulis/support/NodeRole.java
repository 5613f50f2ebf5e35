package io.varpulis.support;

/**
 * The roles of a node's operator API and Actuator endpoints (SPEC section 10), each
 * granting what the ones below it grant: {@link #ADMIN} > {@link #OPERATOR} >
 * {@link #VIEWER}. Spring Security sees them as the authorities {@code ROLE_VIEWER},
 * {@code ROLE_OPERATOR} and {@code ROLE_ADMIN}.
 */
public enum NodeRole {

    /** Reads: workers, groups, topology, parked events, metrics, health details. */
    VIEWER,

    /**
     * Reads, and the writes of day-to-day operation: declare groups, inject events,
     * replay parked events.
     */
    OPERATOR,

    /**
     * Everything, including what loses data: delete groups (with {@code purge}), purge
     * parked events.
     */
    ADMIN;

    /** The prefix Spring Security puts before a role's name in its authority. */
    public static final String AUTHORITY_PREFIX = "ROLE_";

    /**
     * @return the authority, {@code ROLE_} and the name
     */
    public String authority() {
        return AUTHORITY_PREFIX + name();
    }

}
