package io.varpulis.web;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * The 202 of an injection: {@code {"status": "injected", "id": "...", "routes":
 * ["<pipeline>", ...]}}.
 *
 * @param status always {@code injected}: stored on the substrate for every route
 * @param id the injection's id: a retry with {@code ?id=} and this id is stored once
 * @param routes the pipelines the event was routed to from {@code _external}
 */
public record InjectionAccepted(@JsonProperty("status") String status, @JsonProperty("id") String id,
        @JsonProperty("routes") List<String> routes) {
}
