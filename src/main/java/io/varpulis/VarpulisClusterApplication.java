package io.varpulis;

import io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration;
import io.varpulis.demo.BruteForceDemo;
import io.varpulis.smoke.SmokeTest;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * The node:
 * {@code java -jar varpulis-cluster.jar --varpulis.cluster.role=coordinator|worker|standalone}.
 * {@code java -jar varpulis-cluster.jar demo [--input PATH] [--year YYYY] [--alerts-out PATH]}
 * runs the brute-force detection job instead (a coordinator and two workers as separate
 * processes, one killed mid-stream), and
 * {@code java -jar varpulis-cluster.jar smoke-test [--varpulis.nats.*=...]} checks a NATS
 * server and credentials for the jetstream substrate. {@code help} prints the commands.
 * Any other first argument that is not an option is a mistyped command: it is named with
 * the commands and the process exits with status 2, never starting a node.
 * <p>
 * No component scanning: every bean comes from the auto-configurations, the library's and
 * the node's own ({@link ImportNodeAutoConfiguration}), exactly as for a service that
 * uses the jar as a library.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@ImportNodeAutoConfiguration
public class VarpulisClusterApplication {

    /** Exit status of a command line that names no known command. */
    static final int USAGE_ERROR = 2;

    /**
     * @param args Spring Boot arguments ({@code --name=value}), or {@code demo ...},
     * {@code smoke-test ...}, {@code help}
     */
    public static void main(String[] args) {
        String command = args.length == 0 || args[0].startsWith("-") ? null : args[0];
        String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
        if (command == null) {
            if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
                usage(System.out);
                return;
            }
            SpringApplication.run(VarpulisClusterApplication.class, args);
            return;
        }
        switch (command) {
            case "demo" -> System.exit(BruteForceDemo.launch(rest));
            case "smoke-test" -> System.exit(SmokeTest.run(rest));
            case "help" -> usage(System.out);
            default -> {
                System.err.println("unknown command '" + command + "'.");
                usage(System.err);
                System.exit(USAGE_ERROR);
            }
        }
    }

    private static void usage(PrintStream out) {
        out.println("""
                usage: java -jar varpulis-cluster.jar [COMMAND] [--name=value ...]

                commands:
                  (none)       run a node: --varpulis.cluster.role=coordinator|worker|standalone and any
                               varpulis.* / spring.* / server.* property as --name=value
                  demo         run the main job: brute-force detection on a real sshd log (options: README.md)
                  smoke-test   check a NATS server, its credentials and JetStream with this node's settings
                  help         print this text

                Configuration: README.md; every property can also be set by environment variable
                (VARPULIS_NATS_URL, VARPULIS_NATS_SUBSTRATE, VARPULIS_CLUSTER_ROLE, ...).""");
    }

}
