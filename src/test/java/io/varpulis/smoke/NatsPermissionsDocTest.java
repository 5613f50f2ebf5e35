package io.varpulis.smoke;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/OPERATING.md shows exactly the permission sets the permission tests run against a real server
 * ({@link NatsPermissions}): as nats-server users and as {@code nsc} commands. A change to one set without the
 * other fails here.
 */
class NatsPermissionsDocTest {

    @Test
    void theOperatingGuideShowsTheTestedSetsAsServerUsersAndNscCommands() throws Exception {
        String guide = Files.readString(Path.of("docs/OPERATING.md"));
        assertThat(guide).contains(indented(NatsPermissions.coordinator()
                .serverConfigUser("coordinator", "$COORDINATOR_PASSWORD")))
                .contains(indented(NatsPermissions.worker("worker-1").serverConfigUser("worker-1", "$WORKER_1_PASSWORD")))
                .contains(indented(NatsPermissions.publisher().serverConfigUser("publisher", "$PUBLISHER_PASSWORD")))
                .contains(NatsPermissions.coordinator().nscCommand("VARPULIS", "coordinator"))
                .contains(NatsPermissions.worker("worker-1").nscCommand("VARPULIS", "worker-1"))
                .contains(NatsPermissions.publisher().nscCommand("VARPULIS", "publisher"));
    }

    private static String indented(String block) {
        return block.lines().map(line -> "    " + line).collect(Collectors.joining("\n"));
    }
}
