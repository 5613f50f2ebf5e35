package io.varpulis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The node: {@code java -jar varpulis-cluster.jar --varpulis.cluster.role=coordinator|worker|standalone}.
 * {@code java -jar varpulis-cluster.jar demo [--input PATH] [--year YYYY] [--alerts-out PATH]} runs the brute-force
 * detection job instead (a coordinator and two workers as separate processes, one killed mid-stream).
 * <p>No component scanning: every bean comes from the auto-configurations, exactly as for a service that uses the
 * jar as a library.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class VarpulisClusterApplication {

    /**
     * @param args Spring Boot arguments, or {@code demo ...}
     */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("demo")) {
            System.exit(io.varpulis.demo.BruteForceDemo.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        }
        SpringApplication.run(VarpulisClusterApplication.class, args);
    }
}
