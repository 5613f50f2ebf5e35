package io.varpulis.messaging;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves a {@link NatsHeader @NatsHeader("name")} parameter: the header's last value,
 * or {@code null} when the message has none (Spring's {@code @Header} requires it unless
 * {@code required = false}).
 */
final class NatsHeaderResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.hasParameterAnnotation(NatsHeader.class);
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, Message<?> message) {
        Object value = message.getHeaders().get(parameter.getParameterAnnotation(NatsHeader.class).value());
        return value == null ? null : value.toString();
    }

}
