package io.varpulis.bench;

import io.varpulis.test.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CrowdSec (Debian's 1.4.6) replaying the main job's log, the way its documentation's
 * "replay mode" does: one {@code crowdsec -dsn file://LOG -type syslog} process with the
 * packaged offline hub's {@code crowdsecurity/sshd} collection (the {@code sshd-logs}
 * parser and the {@code ssh-bf} and {@code ssh-slow-bf} scenarios) and the
 * {@code syslog-logs} and {@code dateparse-enrich} parsers of {@code crowdsecurity/linux}
 * that it needs, nothing else. CrowdSec 1.4.6 refuses to run its agent without a local
 * API client ({@code -no-api} still needs a running one to push alerts to), so the
 * process also serves its own local API on a free 127.0.0.1 port with an SQLite database
 * in the run's directory, the Central API off ({@code -no-capi}, no network), Prometheus
 * off. Each run starts from an empty database (the machine is registered before the clock
 * starts).
 * <p>
 * Its rate is lines divided by the wall time of the whole command, start-up included, as
 * fail2ban-regex's. Its leaky buckets are not SPEC section 7's window rule: its overflows
 * ({@code performed 'crowdsecurity/ssh-bf'} and the others, each an alert) and its
 * decisions (bans) are reported beside the job's alerts, never compared.
 */
final class CrowdSecRun {

    /** The packaged offline hub (README.Debian, "Offline hub"). */
    static final Path HUB = Path.of("/usr/share/crowdsec/hub");

    private static final List<String> ITEMS = List.of("parsers/s00-raw/crowdsecurity/syslog-logs.yaml",
            "parsers/s01-parse/crowdsecurity/sshd-logs.yaml", "parsers/s02-enrich/crowdsecurity/dateparse-enrich.yaml",
            "scenarios/crowdsecurity/ssh-bf.yaml", "scenarios/crowdsecurity/ssh-slow-bf.yaml");

    private static final Pattern OVERFLOW = Pattern.compile("performed '([^']+)'");

    private static final Pattern DECISION = Pattern.compile(": \\S+ ban on Ip ");

    private CrowdSecRun() {
    }

    /**
     * One replay.
     *
     * @param timed the command's wall and CPU seconds
     * @param bruteForce overflows of {@code crowdsecurity/ssh-bf} (its brute-force
     * alerts)
     * @param overflows overflows of every loaded scenario (ssh-bf, ssh-slow-bf and their
     * user-enum variants)
     * @param decisions ban decisions its local API made from them
     */
    record Replay(MainJobRun.Timed timed, long bruteForce, long overflows, long decisions) {
    }

    /**
     * @return CrowdSec's version line, or {@code null} when {@code crowdsec} or the
     * packaged hub is missing
     */
    static String version(Path dir) throws IOException, InterruptedException {
        if (!Files.isDirectory(HUB)) {
            return null;
        }
        MainJobRun.Timed version = MainJobRun.bash("crowdsec -version 2>&1 | head -n 1", dir);
        Matcher number = Pattern.compile("version: (\\S+)").matcher(version.output());
        return number.find() ? "CrowdSec " + number.group(1) : null;
    }

    /**
     * Replays the log once, from a fresh configuration and database under
     * {@code dir/crowdsec}.
     * @param log the sshd log
     * @param dir the scenario's directory
     * @param run names the run's log file
     * @return its figures; the log is {@code dir/crowdsec-RUN.log}
     */
    static Replay run(Path log, Path dir, String run) throws IOException, InterruptedException {
        Path home = dir.resolve("crowdsec").toAbsolutePath();
        MainJobRun.bash("rm -rf " + home, dir);
        Path config = configure(home);
        MainJobRun.Timed registered = MainJobRun.bash("cscli -c " + config + " machines add bench --auto --force -f "
                + home.resolve("conf/local_api_credentials.yaml") + " 2>&1", dir);
        if (!Files.isRegularFile(home.resolve("conf/local_api_credentials.yaml"))) {
            throw new IllegalStateException("cscli could not register the bench machine: " + registered.output());
        }
        Path output = dir.resolve("crowdsec-" + run + ".log").toAbsolutePath();
        MainJobRun.Timed timed = MainJobRun.bash("crowdsec -c " + config + " -dsn file://" + log.toAbsolutePath()
                + " -type syslog -no-capi > " + output + " 2>&1", dir);
        String text = Files.readString(output);
        long bruteForce = 0;
        long overflows = 0;
        Matcher overflow = OVERFLOW.matcher(text);
        while (overflow.find()) {
            overflows++;
            bruteForce += overflow.group(1).equals("crowdsecurity/ssh-bf") ? 1 : 0;
        }
        long decisions = DECISION.matcher(text).results().count();
        return new Replay(timed, bruteForce, overflows, decisions);
    }

    /**
     * Writes the configuration: the hub items above as symbolic links, the packaged
     * patterns and profiles.
     */
    private static Path configure(Path home) throws IOException, InterruptedException {
        Path conf = Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("data"));
        for (String item : ITEMS) {
            // crowdsec wants config_dir/<kind>/<stage>/<file>: the hub's vendor directory
            // is left out.
            Path source = HUB.resolve(item);
            Path parent = Path.of(item).getParent().getParent();
            Path link = conf.resolve(parent).resolve(source.getFileName());
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, source);
        }
        MainJobRun.bash("cp -r /etc/crowdsec/patterns " + conf + " && cp /etc/crowdsec/profiles.yaml "
                + "/etc/crowdsec/simulation.yaml " + conf + " && touch " + conf.resolve("acquis.yaml"), home);
        Path config = conf.resolve("config.yaml");
        Files.writeString(config, String.format(Locale.ROOT, """
                common:
                  daemonize: false
                  log_media: stdout
                  log_level: info
                  working_dir: .
                config_paths:
                  config_dir: %1$s/conf/
                  data_dir: %1$s/data/
                  simulation_path: %1$s/conf/simulation.yaml
                  hub_dir: /var/lib/crowdsec/hub/
                  index_path: /var/lib/crowdsec/hub/.index.json
                crowdsec_service:
                  acquisition_path: %1$s/conf/acquis.yaml
                  parser_routines: 1
                db_config:
                  type: sqlite
                  db_path: %1$s/data/crowdsec.db
                  use_wal: true
                prometheus:
                  enabled: false
                api:
                  client:
                    credentials_path: %1$s/conf/local_api_credentials.yaml
                  server:
                    listen_uri: 127.0.0.1:%2$d
                    profiles_path: %1$s/conf/profiles.yaml
                    trusted_ips:
                      - 127.0.0.1
                """, home, LoopbackPorts.next()));
        return config;
    }

}
