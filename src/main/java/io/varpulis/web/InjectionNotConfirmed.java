package io.varpulis.web;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The 503 of an injection the substrate did not confirm in time: {@code {"error": "...",
 * "id": "..."}}. The event may still be stored once NATS is back; retrying with
 * {@code ?id=} and this id stores it once.
 *
 * @param error what went wrong and what to do
 * @param id the injection's id, to send back as {@code ?id=}
 */
public record InjectionNotConfirmed(@JsonProperty("error") String error, @JsonProperty("id") String id) {
}
