package io.varpulis.container;

/**
 * Where a delivery's handling threw: the {@code stage} tag of
 * {@code varpulis.consumer.errors{unit,stage}} (SPEC section 18: whatever throws while a
 * delivery is handled is an outcome of that delivery, counted and logged once).
 */
public enum ErrorStage {

    /**
     * The payload's conversion threw something other than a declared conversion failure.
     */
    CONVERTER("converter"),

    /**
     * The listener method or the pipeline's processor threw, or did not finish within its
     * apply timeout.
     */
    LISTENER("listener"),

    /**
     * An observation handler, convention or other decorator threw: the delivery is
     * applied and settled without it.
     */
    OBSERVATION("observation"),

    /** The service's error handler threw: the default rule decided instead. */
    ERROR_HANDLER("error_handler"),

    /** Settling threw (a bug of ours): the delivery is left for redelivery. */
    SETTLER("settler");

    private final String tag;

    ErrorStage(String tag) {
        this.tag = tag;
    }

    /**
     * @return the stage as written in the meter's tag and the logs
     */
    public String tag() {
        return tag;
    }

}
