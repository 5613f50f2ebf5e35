package io.varpulis.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The machine a table was measured on, printed with every table: figures from another
 * machine are not comparable.
 */
record Machine(int cores, String cpu, long memoryMib, String kernel, String jvm, String natsServer,
        String storeFileSystem) {

    static Machine describe(Broker broker) {
        return new Machine(Runtime.getRuntime().availableProcessors(), readCpuModel(), readMemoryMib(),
                System.getProperty("os.name") + " " + System.getProperty("os.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                broker.serverVersion(), fileSystem(broker.storeDir()));
    }

    String line() {
        return cores + " cores (" + cpu + "), " + memoryMib + " MiB RAM, " + kernel + ", " + jvm + ", nats-server "
                + natsServer + " (JetStream file store on " + storeFileSystem + ", 127.0.0.1)";
    }

    /**
     * @return the load averages over 1, 5 and 15 minutes, as {@code uptime} prints them,
     * from /proc/loadavg
     */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        }
        catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String readCpuModel() {
        return procLine(Path.of("/proc/cpuinfo"), "model name").orElse("unknown CPU");
    }

    private static long readMemoryMib() {
        return procLine(Path.of("/proc/meminfo"), "MemTotal").map(v -> Long.parseLong(v.replaceAll("\\D", "")) / 1024)
            .orElse(-1L);
    }

    static Optional<String> procLine(Path file, String key) {
        try {
            return Files.readAllLines(file)
                .stream()
                .filter(l -> l.startsWith(key))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst();
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String fileSystem(Path dir) {
        try {
            Path existing = dir;
            while (!Files.exists(existing)) {
                existing = existing.getParent();
            }
            return Files.getFileStore(existing).type();
        }
        catch (IOException | RuntimeException e) {
            return "unknown file system";
        }
    }
}
