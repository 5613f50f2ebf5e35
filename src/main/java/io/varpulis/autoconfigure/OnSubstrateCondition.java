package io.varpulis.autoconfigure;

import io.varpulis.nats.Substrate;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.util.Map;

/**
 * The condition behind {@link ConditionalOnSubstrate}.
 */
class OnSubstrateCondition extends SpringBootCondition {

    /** The property that selects the substrate (env {@code VARPULIS_NATS_SUBSTRATE}). */
    static final String PROPERTY = "varpulis.nats.substrate";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnSubstrate.class.getName());
        Substrate wanted = (Substrate) attributes.get("value");
        String configured = context.getEnvironment().getProperty(PROPERTY, Substrate.CORE.id());
        try {
            Substrate actual = Substrate.parse(configured);
            return actual == wanted ? ConditionOutcome.match(PROPERTY + " is " + actual)
                    : ConditionOutcome.noMatch(PROPERTY + " is " + actual + ", not " + wanted);
        }
        catch (IllegalArgumentException e) {
            return ConditionOutcome.noMatch(PROPERTY + " is invalid: " + e.getMessage());
        }
    }

}
