package io.varpulis.autoconfigure;

import io.varpulis.nats.Substrate;
import org.springframework.context.annotation.Conditional;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Matches when {@code varpulis.nats.substrate} (aliases included, default core) names the
 * given substrate. An unparseable value matches nothing; the {@link Substrate} bean then
 * fails startup with the property's name.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnSubstrateCondition.class)
public @interface ConditionalOnSubstrate {

    /**
     * @return the substrate that must be configured
     */
    Substrate value();

}
