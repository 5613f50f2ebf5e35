package io.varpulis.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 5: what a caller sent stays on its audit line, every control character
 * escaped.
 */
class AuditLogTest {

    @Test
    void lineBreaksAndOtherControlCharactersAreEscaped_printableTextIsKept() {
        assertThat(AuditLog.escape("a\nb\r\nc\td")).isEqualTo("a\\nb\\r\\nc\\td");
        assertThat(AuditLog.escape("\u0000\u001b[31m\u007f\u0085\u2028\u2029"))
            .isEqualTo("\\u0000\\u001b[31m\\u007f\\u0085\\u2028\\u2029");
        assertThat(AuditLog.escape("C:\\path")).as("a backslash cannot fake an escape").isEqualTo("C:\\\\path");
        assertThat(AuditLog.escape("alice [OPERATOR]: inject Ünïcode into group ssh"))
            .isEqualTo("alice [OPERATOR]: inject Ünïcode into group ssh");
        assertThat(AuditLog.escape(null)).isEqualTo("null");
    }

}
