package io.varpulis.nats;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.convert.converter.Converter;

/**
 * Binds {@code varpulis.nats.substrate} to a {@link Substrate} with its aliases
 * ({@link Substrate#parse}); Spring's own enum conversion knows neither {@code pubsub}
 * nor {@code js}. An empty or unknown value fails startup naming the property, the value,
 * the accepted ones and the fix.
 */
public class SubstrateConverter implements Converter<String, Substrate> {

    /** The property this converter binds. */
    public static final String PROPERTY = "varpulis.nats.substrate";

    /**
     * @param source the configured value
     * @return the substrate it names
     * @throws InvalidConfigurationPropertyValueException naming {@value #PROPERTY}, when
     * the value is empty or unknown
     */
    @Override
    public Substrate convert(String source) {
        try {
            return Substrate.parse(source);
        }
        catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException(PROPERTY, source,
                    e.getMessage() + ". Set " + PROPERTY + " (env VARPULIS_NATS_SUBSTRATE) to core or jetstream.");
        }
    }

}
