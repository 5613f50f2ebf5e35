package io.varpulis.pipeline;

/** How a chain's writes say what they expect. */
enum Chaining {

    /**
     * Up to {@link WriteChain#WINDOW} writes on the wire, each expecting its
     * predecessor's message id (a bucket without {@code allow_atomic}, before nats-server
     * 2.14).
     */
    MESSAGE_ID,
    /**
     * One write at a time expecting the last confirmed sequence (2.14+, a bucket without
     * {@code allow_atomic}).
     */
    SEQUENCE,
    /**
     * One atomic batch at a time, whole applies, its first write expecting the last
     * confirmed sequence (a bucket with {@code allow_atomic}, 2.12+).
     */
    ATOMIC_BATCH;

    /** {@code JSStreamWrongLastMsgIDErr}: the predecessor is not the last message. */
    static final int WRONG_LAST_MESSAGE_ID = 10070;

    /** {@code JSStreamWrongLastSequenceErr}: the bucket's last sequence was another. */
    static final int WRONG_LAST_SEQUENCE = 10071;

    /**
     * @param apiErrorCode a refusal's JetStream error code
     * @return whether it says that the chain broke (its expectation was false) rather
     * than that the write itself was refused. A batch refused as incomplete (10176: a
     * leader change, a reconnect, the batch timed out, or one of its parts refused, which
     * only the commit's answer tells) counts as refused, so that a part the stream keeps
     * refusing ends in {@link ChainRepair.Action#DROPPED}, not in sending it for ever.
     */
    static boolean brokenBy(int apiErrorCode) {
        return apiErrorCode == WRONG_LAST_MESSAGE_ID || apiErrorCode == WRONG_LAST_SEQUENCE;
    }

    /**
     * @param from214 whether the server is nats-server 2.14 or later
     * @param atomicPublish whether the bucket takes atomic batches (created with
     * {@code allow_atomic}, which needs 2.12)
     * @return the chaining for them
     */
    static Chaining of(boolean from214, boolean atomicPublish) {
        return atomicPublish ? ATOMIC_BATCH : from214 ? SEQUENCE : MESSAGE_ID;
    }

}
