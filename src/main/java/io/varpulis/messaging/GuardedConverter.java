package io.varpulis.messaging;

import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.converter.SmartMessageConverter;

/**
 * The listeners' converter (the service's {@link MessageConverter} bean, or the
 * {@link PayloadConverter}), whose throws are told apart: a
 * {@link MessageConversionException} says the payload cannot be converted (parked
 * {@code undecodable} on delivery 1); anything else it throws is a bug of the converter,
 * a {@link ConverterFailedException} (retried, counted at the {@code converter} stage).
 */
final class GuardedConverter implements SmartMessageConverter {

    private final MessageConverter delegate;

    GuardedConverter(MessageConverter delegate) {
        this.delegate = delegate;
    }

    @Override
    public Object fromMessage(Message<?> message, Class<?> targetClass, Object conversionHint) {
        try {
            return delegate instanceof SmartMessageConverter smart
                    ? smart.fromMessage(message, targetClass, conversionHint)
                    : delegate.fromMessage(message, targetClass);
        }
        catch (MessageConversionException e) {
            throw e;
        }
        catch (RuntimeException e) {
            throw new ConverterFailedException(e);
        }
    }

    @Override
    public Object fromMessage(Message<?> message, Class<?> targetClass) {
        return fromMessage(message, targetClass, null);
    }

    @Override
    public Message<?> toMessage(Object payload, MessageHeaders headers, Object conversionHint) {
        return delegate instanceof SmartMessageConverter smart ? smart.toMessage(payload, headers, conversionHint)
                : delegate.toMessage(payload, headers);
    }

    @Override
    public Message<?> toMessage(Object payload, MessageHeaders headers) {
        return delegate.toMessage(payload, headers);
    }

    /** A converter that threw something other than a conversion failure. */
    static final class ConverterFailedException extends RuntimeException {

        ConverterFailedException(RuntimeException cause) {
            super("the converter threw " + cause, cause);
        }

    }

}
