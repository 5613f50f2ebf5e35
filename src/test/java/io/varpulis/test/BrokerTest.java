package io.varpulis.test;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that runs against a real nats-server ({@link NatsServerExtension}, a
 * node process, the demo): the JUnit tag {@value #TAG}, which {@code .ci/run} selects to
 * repeat these tests on every nats-server version of the matrix
 * ({@code ./mvnw -Dgroups=broker ...}). {@code TestConventionsTest} fails for a
 * broker-backed class that lacks it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(BrokerTest.TAG)
public @interface BrokerTest {

    /** The JUnit tag. */
    String TAG = "broker";

}
