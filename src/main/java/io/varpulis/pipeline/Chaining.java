package io.varpulis.pipeline;

/** How a chain's writes say what they expect. */
enum Chaining {

    /**
     * Up to {@link WriteChain#WINDOW} writes on the wire, each expecting its
     * predecessor's message id (before nats-server 2.14).
     */
    MESSAGE_ID,
    /**
     * One write at a time expecting the last confirmed sequence (2.14+, a bucket without
     * {@code allow_atomic}).
     */
    SEQUENCE,
    /**
     * One atomic batch at a time, whole applies, its first write expecting the last
     * confirmed sequence (2.14+, a bucket with {@code allow_atomic}).
     */
    ATOMIC_BATCH;

    /** {@code JSStreamWrongLastMsgIDErr}: the predecessor is not the last message. */
    static final int WRONG_LAST_MESSAGE_ID = 10070;

    /** {@code JSStreamWrongLastSequenceErr}: the bucket's last sequence was another. */
    static final int WRONG_LAST_SEQUENCE = 10071;

    /**
     * {@code JSAtomicPublishIncompleteBatchErr}: the leader did not get the whole batch
     * (it changed, the connection reconnected); nothing of it was stored.
     */
    static final int INCOMPLETE_BATCH = 10176;

    /**
     * @param apiErrorCode a refusal's JetStream error code
     * @return whether it says that the chain broke (its expectation was false, or a batch
     * did not arrive whole) rather than that the write itself was refused
     */
    static boolean brokenBy(int apiErrorCode) {
        return apiErrorCode == WRONG_LAST_MESSAGE_ID || apiErrorCode == WRONG_LAST_SEQUENCE
                || apiErrorCode == INCOMPLETE_BATCH;
    }

    /**
     * @param from214 whether the server is nats-server 2.14 or later
     * @param atomicPublish whether the bucket takes atomic batches
     * @return the chaining for them
     */
    static Chaining of(boolean from214, boolean atomicPublish) {
        return !from214 ? MESSAGE_ID : atomicPublish ? ATOMIC_BATCH : SEQUENCE;
    }

}
