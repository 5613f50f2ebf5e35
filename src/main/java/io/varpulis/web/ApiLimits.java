package io.varpulis.web;

import org.springframework.util.unit.DataSize;

/**
 * What the operator API accepts from a caller ({@code varpulis.security.*}, SPEC section
 * 10): beyond these, a request is answered 413 or 400.
 *
 * @param maxRequestSize the largest request body
 * @param maxEventTypeLength the longest event type of an injected event, in characters
 * @param maxFieldNameLength the longest field name of an injected event, in characters
 */
public record ApiLimits(DataSize maxRequestSize, int maxEventTypeLength, int maxFieldNameLength) {

}
