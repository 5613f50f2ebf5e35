package io.varpulis.bruteforce;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;

/**
 * The settings of the main job's processor types on a cluster node,
 * {@code varpulis.demo.processors.*}.
 */
@ConfigurationProperties(prefix = "varpulis.demo.processors")
public class BruteForceProperties {

    /**
     * Whether the node registers {@code sshd-parse}, {@code brute-force} and
     * {@code alert-file}. Off by default: {@code alert-file} writes files on the worker's
     * host for whoever may declare a group, so a node opts in (the demo's own nodes do).
     * Every node of a cluster that runs the job sets it, the coordinator included (it
     * checks the types when a group is declared).
     */
    private boolean enabled = false;

    /**
     * The only directory {@code alert-file} writes in, created when absent: its setting
     * {@code path} is a file name relative to it (subdirectories allowed, never
     * {@code ..}, an absolute path or a symbolic link out of it). A relative directory is
     * resolved against the node's working directory. The default is under
     * {@code java.io.tmpdir}, writable in the image; on a host shared with other users,
     * name a directory of the node's own.
     */
    private Path alertDir = Path.of(System.getProperty("java.io.tmpdir"), "varpulis-alerts");

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Path getAlertDir() {
        return alertDir;
    }

    public void setAlertDir(Path alertDir) {
        this.alertDir = alertDir;
    }

}
