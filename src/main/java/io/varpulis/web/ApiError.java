package io.varpulis.web;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The operator API's error body: {@code {"error": "..."}}.
 *
 * @param error what went wrong and, where it helps, what to do
 */
public record ApiError(@JsonProperty("error") String error) {
}
