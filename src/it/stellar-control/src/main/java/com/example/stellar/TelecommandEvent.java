package com.example.stellar;

/** What became of a telecommand, published on {@code stellar.tc.evt.<target>.<tc_id>}. */
public record TelecommandEvent(String tcId, String target, String command, String status, long attempt) {
}
