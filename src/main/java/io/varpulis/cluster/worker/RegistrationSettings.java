package io.varpulis.cluster.worker;

import java.time.Duration;

/**
 * How a worker registers with the coordinator ({@code varpulis.cluster.*}).
 *
 * @param apiKey the shared secret it presents, or {@code null} for none
 * @param maxPipelines the most pipelines it accepts (its capacity)
 * @param backoff the first wait before a failed registration is retried; doubles each
 * time
 * @param maxBackoff the longest wait between attempts
 * @param exitOnRefusal whether a refusal retrying cannot fix ends the process (status 78)
 */
public record RegistrationSettings(String apiKey, int maxPipelines, Duration backoff, Duration maxBackoff,
        boolean exitOnRefusal) {

    /** Never prints the key. */
    @Override
    public String toString() {
        return "RegistrationSettings[apiKey=" + (apiKey == null ? "none" : "***") + ", maxPipelines=" + maxPipelines
                + ", backoff=" + backoff + ", maxBackoff=" + maxBackoff + ", exitOnRefusal=" + exitOnRefusal + "]";
    }

}
