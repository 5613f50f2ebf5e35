package io.varpulis.dlq;

/**
 * Who asks for a write operation, for the audit line.
 *
 * @param principal the authenticated principal's name, or {@code null} when the request was not authenticated
 * @param address   the remote address the request came from, or {@code null} when unknown (Actuator operations do
 *                  not see it)
 */
public record Caller(String principal, String address) {

    /**
     * @return a caller with neither principal nor address
     */
    public static Caller anonymous() {
        return new Caller(null, null);
    }

    /**
     * @return the principal's name; else {@code anonymous}, with {@code @address} when the address is known
     */
    public String describe() {
        if (principal != null && !principal.isBlank()) {
            return principal;
        }
        return address == null ? "anonymous" : "anonymous@" + address;
    }
}
