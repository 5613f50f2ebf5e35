package io.varpulis.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a {@link NatsListener} method's {@code String} parameter to a header of the
 * message (its last value), or {@code null} when the message has no such header.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface NatsHeader {

    /**
     * @return the header's name, for example {@code Nats-Msg-Id}
     */
    String value();

}
