package io.varpulis.dlq;

import io.varpulis.support.AuditLog;

import java.util.List;

/**
 * Who asks for a write operation, for the audit line.
 *
 * @param principal the authenticated principal's name, or {@code null} when the request
 * was not authenticated
 * @param roles the principal's roles ({@code VIEWER}, {@code OPERATOR}, {@code ADMIN});
 * empty when unknown
 * @param address the remote address the request came from, or {@code null} when unknown
 * (Actuator operations do not see it)
 */
public record Caller(String principal, List<String> roles, String address) {

    /**
     * @param principal the authenticated principal's name, or {@code null}
     * @param roles its roles, or {@code null} for none
     * @param address the remote address, or {@code null}
     */
    public Caller {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }

    /**
     * @param principal the authenticated principal's name, or {@code null}
     * @param address the remote address, or {@code null}
     */
    public Caller(String principal, String address) {
        this(principal, List.of(), address);
    }

    /**
     * @return a caller with neither principal nor address
     */
    public static Caller anonymous() {
        return new Caller(null, List.of(), null);
    }

    /**
     * @return {@link AuditLog#describe}: {@code alice [OPERATOR]}, or
     * {@code anonymous@10.0.0.7}
     */
    public String describe() {
        return AuditLog.describe(principal, roles, address);
    }
}
