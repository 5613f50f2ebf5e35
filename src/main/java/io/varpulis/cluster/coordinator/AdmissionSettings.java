package io.varpulis.cluster.coordinator;

import io.varpulis.cluster.node.HeartbeatSettings;

/**
 * What a registering worker must match to be admitted, and the heartbeat timing it is
 * told.
 *
 * @param substrate the substrate's id ({@code core} or {@code jetstream}) the worker must
 * run on
 * @param apiKey the shared secret the worker must present, or {@code null} for none
 * @param heartbeats the heartbeat timing
 */
public record AdmissionSettings(String substrate, String apiKey, HeartbeatSettings heartbeats) {

    /** Never prints the key. */
    @Override
    public String toString() {
        return "AdmissionSettings[substrate=" + substrate + ", apiKey=" + (apiKey == null ? "none" : "***")
                + ", heartbeats=" + heartbeats + "]";
    }

}
