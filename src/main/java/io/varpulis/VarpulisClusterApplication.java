package io.varpulis;

import io.varpulis.demo.BruteForceDemo;
import io.varpulis.smoke.SmokeTest;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

import java.util.Arrays;

/**
 * The node: {@code java -jar varpulis-cluster.jar --varpulis.cluster.role=coordinator|worker|standalone}.
 * {@code java -jar varpulis-cluster.jar demo [--input PATH] [--year YYYY] [--alerts-out PATH]} runs the brute-force
 * detection job instead (a coordinator and two workers as separate processes, one killed mid-stream), and
 * {@code java -jar varpulis-cluster.jar smoke-test [--varpulis.nats.*=...]} checks a NATS server and credentials
 * for the jetstream substrate.
 * <p>No component scanning: every bean comes from the auto-configurations, exactly as for a service that uses the
 * jar as a library.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class VarpulisClusterApplication {

    /**
     * @param args Spring Boot arguments, or {@code demo ...}, or {@code smoke-test ...}
     */
    public static void main(String[] args) {
        String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
        if (args.length > 0 && args[0].equals("demo")) {
            System.exit(BruteForceDemo.run(rest));
        }
        if (args.length > 0 && args[0].equals("smoke-test")) {
            System.exit(SmokeTest.run(rest));
        }
        SpringApplication.run(VarpulisClusterApplication.class, args);
    }
}
