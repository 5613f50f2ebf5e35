package io.varpulis.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
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
        List<IOException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        GroupFsync broken = GroupFsync.of(gone, failures::add);
        assertThat(broken.request()).failsWithin(30, TimeUnit.SECONDS);
        Files.writeString(gone, "");
        assertThat(broken.request()).as("no line is called stored after a failed sync").isCompletedExceptionally();
        assertThat(failures).as("the failure handler (the process halts, by default) ran once").hasSize(1);
    }
}
