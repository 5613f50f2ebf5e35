package io.varpulis.pipeline;

import java.util.List;

/**
 * What an answer or a look-up changed.
 *
 * @param confirmed writes now known stored, in order
 * @param action what the writer does next
 * @param why for {@link Action#FENCED} and {@link Action#DROPPED} why;
 * {@link WriteChain#REPAIRED} for a {@link Action#SEND} of writes sent again; else empty
 * @param dropped for {@link Action#DROPPED}, the writes dropped (the refused one first)
 */
record ChainRepair(List<StateWrite> confirmed, Action action, String why, List<StateWrite> dropped) {

    /** What the writer does next. */
    enum Action {

        /** Send what {@link WriteChain#toSend()} gives (maybe nothing). */
        SEND,
        /** Look the leader up after a wait: the chain broke. */
        WAIT,
        /** Another writer owns the bucket: stop. */
        FENCED,
        /** Refused for itself twice: its flush and later ones fail. */
        DROPPED

    }

    static ChainRepair of(List<StateWrite> confirmed, Action action) {
        return new ChainRepair(confirmed, action, "", List.of());
    }

}
