package io.varpulis.support;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's choice among the builds scripts/install-nats-server.sh leaves in its cache:
 * the newest of the line asked for (production's 2.12), never a newer line's or an older
 * one's, and none when that line was not built.
 */
class NatsServerBinariesTest {

    @TempDir
    Path cache;

    @Test
    void theNewestBuildOfTheLineIsChosen_notANewerLinesNorAnOlderOnes() throws Exception {
        for (String version : new String[] { "v2.9.10", "v2.12.3", "v2.12.15", "v2.120.1", "v2.15.3" }) {
            build(version);
        }

        assertThat(NatsServerBinaries.built("2.12", cache)).contains(cache.resolve("v2.12.15").resolve("nats-server"));
        assertThat(NatsServerBinaries.built("2.9", cache)).contains(cache.resolve("v2.9.10").resolve("nats-server"));
    }

    @Test
    void noBuildOfTheLineIsNone() throws Exception {
        build("v2.15.3");
        Files.createDirectories(cache.resolve("v2.12.1"));

        assertThat(NatsServerBinaries.built("2.12", cache)).as("a 2.12 directory without a binary is no build")
            .isEmpty();
        assertThat(NatsServerBinaries.built("2.12", cache.resolve("missing"))).isEmpty();
    }

    private void build(String version) throws Exception {
        Path binary = Files.createDirectories(cache.resolve(version)).resolve("nats-server");
        Files.writeString(binary, "#!/bin/sh\n");
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

}
