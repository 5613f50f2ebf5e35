package io.varpulis.bruteforce;

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

/**
 * {@link GroupFsync}: every request is answered by a sync that started after it; a file
 * that cannot be opened fails the waiting requests (their alerts are written again)
 * without halting. A failed {@code fdatasync} itself (which halts the process) cannot be
 * provoked here without a faulty block device.
 */
class GroupFsyncTest {

    @TempDir
    Path dir;

    @Test
    void everyRequestIsConfirmed_andAMissingFileFailsOnlyTheRoundThatFoundItMissing() throws Exception {
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
        GroupFsync later = GroupFsync.of(gone, failures::add);
        assertThat(later.request()).as("a file that cannot be opened: its lines are not stored")
            .failsWithin(30, TimeUnit.SECONDS);
        Files.writeString(gone, "{\"line\":0}\n");
        later.request().get(30, TimeUnit.SECONDS);
        assertThat(failures).as("a missing file is not a failed fdatasync: nothing halts").isEmpty();
    }

}
