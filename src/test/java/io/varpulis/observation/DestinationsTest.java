package io.varpulis.observation;

import io.varpulis.jetstream.DurableNames;
import io.varpulis.nats.Subjects;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The low-cardinality destination of a subject, what is never observed, and the trace id
 * read from a parked event's trace header: pure functions, no broker.
 */
class DestinationsTest {

    @Test
    void clusterSubjectsBecomeTemplatesWithoutTheirIds() {
        assertThat(Destinations.of(Subjects.route("ssh", "_external", "detect")))
            .isEqualTo("varpulis.cluster.pipeline.{group}.{from}.{to}");
        assertThat(Destinations.of(Subjects.route("ssh", "parse", "detect") + ".p3")).isEqualTo(Destinations.ROUTE);
        assertThat(Destinations.of(DurableNames.dlqSubject("detect"))).isEqualTo("varpulis.dlq.{unit}");
        assertThat(Destinations.of(Subjects.command("worker-7", "deploy")))
            .isEqualTo("varpulis.cluster.cmd.{worker}.{command}");
        assertThat(Destinations.of("orders.created")).as("a service's own subject, as its author named it")
            .isEqualTo("orders.created");
    }

    @Test
    void replySubjectsBecomeTemplatesWithoutTheirRequesterOrRequest() {
        assertThat(Destinations.of("varpulis.reply.Xk2bqV8sdfGT0mmaqoiLl1.42"))
            .isEqualTo("varpulis.reply.{requester}.{request}");
        assertThat(Destinations.of("_INBOX.Xk2bqV8sdfGT0mmaqoiLl1.ab12")).isEqualTo("_INBOX.{inbox}");
        assertThat(Destinations.of(Subjects.inbox("publisher", "orders") + ".Xk2bqV8sdfGT0mmaqoiLl1.ab12"))
            .as("a service's own inbox prefix stays: one per service")
            .isEqualTo("_INBOX_publisher_orders.{inbox}");
    }

    @Test
    void heartbeatsAndStateWritesAreNeverObserved() {
        assertThat(Destinations.unobserved(Subjects.heartbeat("worker-1"))).isTrue();
        assertThat(Destinations.unobserved("$KV.varpulis_state.key")).isTrue();
        assertThat(Destinations.unobserved(Subjects.route("ssh", "_external", "detect"))).isFalse();
    }

    @Test
    void theTraceIdOfW3cAndB3Headers() {
        assertThat(ObservedClusterTransport.traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
            .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(ObservedClusterTransport.traceId("80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1"))
            .isEqualTo("80f198ee56343ba864fe8b2a57d3eff7");
        assertThat(ObservedClusterTransport.traceId(null)).isNull();
        assertThat(ObservedClusterTransport.traceId(" ")).isNull();
    }

    @Test
    void anEntryIsARouteEdgeFromOutsideTheCluster() {
        assertThat(Destinations.entry("varpulis.cluster.pipeline.ssh._external.ingress")).isTrue();
        assertThat(Destinations.entry("varpulis.cluster.pipeline.ssh._external.detect.3")).isTrue();
        assertThat(Destinations.entry("varpulis.cluster.pipeline.ssh.ingress.detect")).isFalse();
        assertThat(Destinations.internalRoute("varpulis.cluster.pipeline.ssh.ingress.detect.0")).isTrue();
        assertThat(Destinations.internalRoute("varpulis.cluster.pipeline.ssh._external.ingress")).isFalse();
        assertThat(Destinations.entry("orders._external.x")).isFalse();
        assertThat(Destinations.internalRoute("orders.created")).isFalse();
    }

}
