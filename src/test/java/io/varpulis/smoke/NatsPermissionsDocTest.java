package io.varpulis.smoke;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/OPERATING.md shows exactly the permission sets the permission tests run against a
 * real server ({@link NatsPermissions}): as nats-server users and as {@code nsc}
 * commands. A change to one set without the other fails here.
 */
class NatsPermissionsDocTest {

    @Test
    void theOperatingGuideShowsTheTestedSetsAsServerUsersAndNscCommands() throws Exception {
        String guide = Files.readString(Path.of("docs/OPERATING.md"));
        assertThat(guide)
            .contains(indented(NatsPermissions.coordinator("coordinator-0")
                .serverConfigUser("coordinator-0", "$COORDINATOR_0_PASSWORD")))
            .contains(indented(NatsPermissions.worker("worker-1").serverConfigUser("worker-1", "$WORKER_1_PASSWORD")))
            .contains(indented(NatsPermissions.publisher("ingest").serverConfigUser("ingest", "$INGEST_PASSWORD")))
            .contains(NatsPermissions.coordinator("coordinator-0").nscCommand("VARPULIS", "coordinator-0"))
            .contains(NatsPermissions.worker("worker-1").nscCommand("VARPULIS", "worker-1"))
            .contains(NatsPermissions.publisher("ingest").nscCommand("VARPULIS", "ingest"));
    }

    private static String indented(String block) {
        return block.lines().map(line -> "    " + line).collect(Collectors.joining("\n"));
    }

}
