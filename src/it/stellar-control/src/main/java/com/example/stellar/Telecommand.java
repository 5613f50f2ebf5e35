package com.example.stellar;

/** A telecommand as submitted on {@code stellar.tc.submit.<target>}: {@code {"tc_id", "target", "command"}}. */
public record Telecommand(String tcId, String target, String command) {
}
