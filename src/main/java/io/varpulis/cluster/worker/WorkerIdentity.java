package io.varpulis.cluster.worker;

import io.varpulis.nats.Subjects;

/**
 * Who a worker says it is in its registration (SPEC section 5): its id, the address it
 * announces and the substrate it runs on (a coordinator refuses a worker of another
 * substrate).
 *
 * @param workerId the worker id, a NATS token
 * @param address the address announced, {@code host:port}
 * @param substrate the substrate's id, {@code core} or {@code jetstream}
 */
public record WorkerIdentity(String workerId, String address, String substrate) {

    /**
     * @throws IllegalArgumentException when the worker id is not a NATS token
     */
    public WorkerIdentity {
        workerId = Subjects.token("worker id", workerId);
    }
}
