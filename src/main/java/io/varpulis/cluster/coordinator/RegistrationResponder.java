package io.varpulis.cluster.coordinator;

import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.varpulis.cluster.protocol.Commands;
import io.varpulis.cluster.node.CoreRequests;
import io.varpulis.cluster.protocol.Registration;
import io.varpulis.nats.Subjects;

/**
 * Answers registrations on {@code varpulis.cluster.register} (core request/reply, SPEC
 * section 5; every coordinator of the cluster answers, the worker takes the first reply):
 * {@code {"worker_id","address","api_key","capacity":{...}}} in,
 * {@code {"worker_id","status":"registered","heartbeat_interval_secs":5}} or a refusal
 * out, as {@link WorkerAdmission} decides. Another cluster's registration is left
 * unanswered and reported; an unreadable one is refused with the reason.
 */
public class RegistrationResponder {

    private final String clusterName;

    private final CoreRequests requests;

    private final OtherClusters otherClusters;

    private final WorkerAdmission admission;

    private Dispatcher registrations;

    /**
     * @param clusterName the cluster's name
     * @param requests serves the registrations (in the registration's trace when
     * observed), publishes replies
     * @param otherClusters told of another cluster's registrations
     * @param admission decides each registration
     */
    public RegistrationResponder(String clusterName, CoreRequests requests, OtherClusters otherClusters,
            WorkerAdmission admission) {
        this.clusterName = clusterName;
        this.requests = requests;
        this.otherClusters = otherClusters;
        this.admission = admission;
    }

    /** Subscribes to {@code varpulis.cluster.register}. */
    public synchronized void start() {
        registrations = requests.serve(Subjects.REGISTER, this::onRegistration);
    }

    /** Unsubscribes (nothing when the connection is closed already). */
    public synchronized void stop() {
        requests.close(registrations);
        registrations = null;
    }

    private void onRegistration(Message message) {
        Registration.Reply reply;
        try {
            Registration.Request request = requests.mapper().readValue(message.getData(), Registration.Request.class);
            String from = request.cluster() == null ? Commands.DEFAULT_CLUSTER : request.cluster();
            if (!from.equals(clusterName)) {
                // Not ours to answer: its own cluster's coordinators do (one cluster per
                // account, SPEC section 9).
                otherClusters.noticed(from, "a registration of worker " + request.workerId());
                return;
            }
            reply = admission.answer(request);
        }
        catch (Exception e) {
            reply = Registration.Reply.refused(null, Registration.Reply.UNREADABLE,
                    "unreadable registration: " + e.getMessage());
        }
        requests.reply(message, reply);
    }

}
