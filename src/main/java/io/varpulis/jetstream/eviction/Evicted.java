package io.varpulis.jetstream.eviction;

/**
 * Events a stream dropped by a limit before anything consumed them, found between two
 * rounds of an {@link EvictionDetector} and counted once across every node watching.
 *
 * @param stream the stream
 * @param consumer the durable consumer that never got them, {@value #NO_CONSUMER} for a
 * stream nothing consumes (parked events of {@code VARPULIS_DLQ})
 * @param unit what consumes it (pipeline, listener), {@value #NO_CONSUMER} for none
 * @param events how many
 * @param bound whether {@code events} is exact or a bound
 * @param fromSequence the first stream sequence they may have had
 * @param toSequence the last
 */
public record Evicted(String stream, String consumer, String unit, long events, Bound bound, long fromSequence,
        long toSequence) {

    /** The {@code consumer} and {@code unit} of a stream nothing consumes. */
    public static final String NO_CONSUMER = "none";

    /** How exact a count is (docs/RELIABILITY.md, "Every exit counted"). */
    public enum Bound {

        /** Exactly that many. */
        EXACT("exactly"),

        /**
         * At least that many: the consumer was delivering meanwhile, or the stream
         * dropped all it held between two rounds.
         */
        AT_LEAST("at least"),

        /** At most that many: messages were also removed by hand meanwhile. */
        AT_MOST("at most");

        private final String words;

        Bound(String words) {
            this.words = words;
        }

        /**
         * @return how a log line says it: {@code exactly}, {@code at least},
         * {@code at most}
         */
        public String words() {
            return words;
        }

    }

}
