package io.varpulis.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link GroupFsync}: every request is answered by a sync that started after it; a missing file fails them. */
class GroupFsyncTest {

    @TempDir
    Path dir;

    @Test
    void everyRequestIsConfirmed_andAFailedSyncFailsEveryLaterRequest() throws Exception {
        Path file = Files.writeString(dir.resolve("alerts.jsonl"), "");
        GroupFsync sync = GroupFsync.of(file);
        List<CompletableFuture<Void>> requests = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Files.writeString(file, "{\"line\":" + i + "}\n", java.nio.file.StandardOpenOption.APPEND);
            requests.add(sync.request());
        }
        CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        Path gone = dir.resolve("gone.jsonl");
        GroupFsync broken = GroupFsync.of(gone);
        assertThat(broken.request()).failsWithin(30, TimeUnit.SECONDS);
        Files.writeString(gone, "");
        assertThat(broken.request()).as("no line is called stored after a failed sync").isCompletedExceptionally();
    }
}
