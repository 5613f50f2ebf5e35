package com.example.stellar;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What became of a telecommand, published on {@code stellar.tc.evt.<target>.<tc_id>}. */
public record TelecommandEvent(@JsonProperty("tc_id") String tcId, String target, String command, String status) {
}
