package io.varpulis.support;

import org.springframework.validation.Errors;

import java.time.Duration;

/**
 * Range checks of {@code @ConfigurationProperties} fields, for properties classes that
 * validate themselves (Spring's {@link org.springframework.validation.Validator}, which
 * Spring Boot applies while binding). The library carries no Bean Validation provider: a
 * service gets no Hibernate Validator (nor the EL implementation it needs to run, and to
 * be processed ahead of time) from us, and its startup fails all the same with Spring
 * Boot's report naming the property, its value, its origin and the allowed range.
 */
public final class PropertyChecks {

    private PropertyChecks() {
    }

    /**
     * @param errors where a violation goes
     * @param field the bean path of the field ({@code jetstream.replicas})
     * @param value its value
     * @param min the smallest allowed value
     * @param max the largest allowed value
     */
    public static void inRange(Errors errors, String field, long value, long min, long max) {
        if (value < min || value > max) {
            errors.rejectValue(field, "Range", new Object[] { min, max },
                    "must be between " + min + " and " + max + ", got " + value);
        }
    }

    /**
     * @param errors where a violation goes
     * @param field the bean path of the field
     * @param value its value
     * @param min the smallest allowed value
     */
    public static void atLeast(Errors errors, String field, long value, long min) {
        if (value < min) {
            errors.rejectValue(field, "Min", new Object[] { min }, "must be at least " + min + ", got " + value);
        }
    }

    /**
     * @param errors where a violation goes
     * @param field the bean path of the field
     * @param value its value ({@code null} passes: the field's default is then used by
     * whoever reads it)
     * @param min the shortest allowed duration
     */
    public static void atLeast(Errors errors, String field, Duration value, Duration min) {
        if (value != null && value.compareTo(min) < 0) {
            errors.rejectValue(field, "DurationMin", new Object[] { min },
                    "must be at least " + min.toMillis() + " ms, got " + value.toMillis() + " ms");
        }
    }

}
