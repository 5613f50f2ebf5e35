package io.varpulis.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.MessageHandler;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.varpulis.observation.NatsObservationDocumentation.CommonKeys;
import io.varpulis.observation.NatsObservationDocumentation.MessageKeys;
import io.varpulis.transport.RequestReply;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * {@link RequestReply} observed (SPEC section 14): a request is a {@code send}
 * observation (the child of the current one: the HTTP request of an API call, a placement
 * round) that writes the trace headers into the request's NATS headers and ends with the
 * reply; a request served is a {@value #SERVE_NAME} observation ({@code process
 * {destination}}, a consumer span) whose parent is read from those headers, current while
 * the handler runs, so what the handler publishes (an injected event) continues the
 * trace. Tags as the substrate's other observations: {@code messaging.system=nats},
 * {@code messaging.operation.type}, {@code messaging.destination.name} (the command
 * subject as the template {@code varpulis.cluster.cmd.{worker}.{command}}),
 * {@code error.type}; the subject on the span only.
 */
public class ObservedRequestReply implements RequestReply {

    /** The observation (and meter) name of a request served. */
    public static final String SERVE_NAME = "varpulis.nats.serve";

    private final RequestReply delegate;

    private final ObservationRegistry registry;

    private final NatsSendObservationConvention sendConvention;

    /**
     * @param delegate the request/reply it observes
     * @param registry where observations are recorded
     * @param sendConvention the application's convention for sends, or {@code null} for
     * the default
     */
    public ObservedRequestReply(RequestReply delegate, ObservationRegistry registry,
            NatsSendObservationConvention sendConvention) {
        this.delegate = delegate;
        this.registry = registry;
        this.sendConvention = sendConvention;
    }

    @Override
    public CompletableFuture<Message> request(Connection connection, String subject, byte[] body, Duration timeout) {
        if (registry.isNoop()) {
            return delegate.request(connection, subject, body, timeout);
        }
        return ObservedRequester.observe(registry, sendConvention, subject, null, trace -> {
            Headers headers = new Headers();
            trace.forEach(headers::put);
            return connection.requestWithTimeout(
                    NatsMessage.builder().subject(subject).headers(headers).data(body).build(), timeout);
        });
    }

    @Override
    public MessageHandler serving(MessageHandler handler) {
        MessageHandler served = delegate.serving(handler);
        if (registry.isNoop()) {
            return served;
        }
        return request -> {
            NatsRequestContext context = new NatsRequestContext(request);
            String destination = Destinations.of(request.getSubject());
            Observation observation = Observation.createNotStarted(SERVE_NAME, () -> context, registry)
                .contextualName("process " + destination)
                .lowCardinalityKeyValues(KeyValues.of(CommonKeys.MESSAGING_SYSTEM.withValue("nats"),
                        CommonKeys.OPERATION_TYPE.withValue("process"),
                        CommonKeys.DESTINATION_NAME.withValue(destination)))
                .highCardinalityKeyValue(MessageKeys.SUBJECT.withValue(request.getSubject()))
                .start();
            try (Observation.Scope scope = observation.openScope()) {
                served.onMessage(request);
            }
            catch (InterruptedException | RuntimeException | Error e) {
                observation.error(e);
                throw e;
            }
            finally {
                observation.lowCardinalityKeyValue(CommonKeys.ERROR_TYPE
                    .withValue(DefaultNatsSendObservationConvention.errorType(context.getError())));
                observation.stop();
            }
        };
    }

}
