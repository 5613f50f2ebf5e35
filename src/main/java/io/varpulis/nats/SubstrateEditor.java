package io.varpulis.nats;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.beans.PropertyEditorSupport;

/**
 * Binds {@code varpulis.nats.substrate} to a {@link Substrate} with its aliases
 * ({@link Substrate#parse}); Spring's own enum conversion knows neither {@code pubsub}
 * nor {@code js}. An empty or unknown value fails startup naming the property, the value,
 * the accepted ones and the fix.
 * <p>
 * A property editor named after its type and beside it (the JavaBeans convention), so
 * that Spring Boot's binder finds it before any conversion service: the aliases and the
 * refusal hold in every application, including one that declares its own
 * {@code conversionService} bean, for which Boot ignores
 * {@code @ConfigurationPropertiesBinding} converters.
 */
public class SubstrateEditor extends PropertyEditorSupport {

    /** The property this editor binds. */
    public static final String PROPERTY = "varpulis.nats.substrate";

    /**
     * @param value the configured value
     * @return the substrate it names
     * @throws InvalidConfigurationPropertyValueException naming {@value #PROPERTY}, when
     * the value is empty or unknown
     */
    public static Substrate convert(String value) {
        try {
            return Substrate.parse(value);
        }
        catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException(PROPERTY, value,
                    e.getMessage() + ". Set " + PROPERTY + " (env VARPULIS_NATS_SUBSTRATE) to core or jetstream.");
        }
    }

    /**
     * @param text the configured value
     * @throws InvalidConfigurationPropertyValueException naming {@value #PROPERTY}, when
     * the value is empty or unknown
     */
    @Override
    public void setAsText(String text) {
        setValue(convert(text));
    }

}
