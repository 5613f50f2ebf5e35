package com.example.stellar;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A telecommand as submitted on {@code stellar.tc.submit.<target>}. */
public record Telecommand(@JsonProperty("tc_id") String tcId, String target, String command) {
}
