package io.varpulis.faults;

import java.util.Locale;
import java.util.stream.Stream;

/**
 * One run's figures, a row of the results table.
 *
 * @param scenario the scenario ({@code a} to {@code e}, {@code pause-alerts}, ...)
 * @param run its run number
 * @param passed whether the run met its bar (exit 0, exactly the reference alerts,
 * nothing valid parked or lost, no alert written or stored twice, no window's state
 * missing)
 * @param expected events that had to be applied (failures the log holds; events published
 * in {@code e})
 * @param applied events applied
 * @param parked events parked that were not poison (must be 0), with the poison parked as
 * expected after a slash when there is some
 * @param duplicated events stored twice on an edge
 * @param alertsExpected alerts of the reference run, or -1 when the scenario has none
 * @param alertsGot distinct alerts written
 * @param twice alerts written twice, stored twice, state missing ({@link Twice#NONE}
 * where not measured)
 * @param recovery how long the cluster took to recover (a new placement, a new leader),
 * or {@code -}
 * @param notes what else was measured (election time, retries, the fault's timing) or why
 * it failed
 * @param watched what issue 30 asks of every run: max-deliveries advisories and their
 * parked events, workers declared unhealthy, state-write publishes, the job's end-to-end
 * time ({@link Watched#NONE} where not measured)
 */
record Row(String scenario, int run, boolean passed, long expected, long applied, String parked, long duplicated,
        long alertsExpected, long alertsGot, Twice twice, String recovery, String notes, Watched watched) {

    /**
     * A row without issue 30's figures; the parameters are the canonical constructor's.
     */
    Row(String scenario, int run, boolean passed, long expected, long applied, String parked, long duplicated,
            long alertsExpected, long alertsGot, Twice twice, String recovery, String notes) {
        this(scenario, run, passed, expected, applied, parked, duplicated, alertsExpected, alertsGot, twice, recovery,
                notes, Watched.NONE);
    }

    /**
     * What exactly-once forbids, counted from the demo's report and alert file.
     *
     * @param written alert lines in the alert file beyond the first of their identity
     * (src_ip, window_start)
     * @param stored alerts stored by {@code detect} beyond the expected ones: distinct
     * message ids over the reference's count, plus copies of one id
     * @param stateMissing failure events whose window in {@code detect}'s state is not
     * the reference's
     */
    record Twice(long written, long stored, long stateMissing) {

        /** Not measured (a scenario without the demo). */
        static final Twice NONE = new Twice(-1, -1, -1);

        /**
         * @return whether nothing was written or stored twice and no state is missing
         */
        boolean exact() {
            return written <= 0 && stored <= 0 && stateMissing <= 0;
        }
    }

    /**
     * What issue 30 counts in a run, -1 where not measured.
     *
     * @param advisories {@code $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>} advisories
     * seen from before the job started until after its report
     * @param parked those of them with a parked event of the same stream sequence in
     * {@code VARPULIS_DLQ}
     * @param unhealthy times a coordinator logged a worker unhealthy ("missed its
     * heartbeats")
     * @param stateWrites publishes on the state buckets' subjects ({@code $KV.>}),
     * retries included
     * @param seconds the job's end-to-end time ({@code seconds_end_to_end}), or a
     * negative number
     */
    record Watched(long advisories, long parked, long unhealthy, long stateWrites, double seconds) {

        /** Not measured. */
        static final Watched NONE = new Watched(-1, -1, -1, -1, -1);

        /**
         * @return an advisory whose message the DLQ does not hold: the server gave it up
         * and nothing parked it
         */
        boolean silentlyDropped() {
            return advisories > 0 && parked < advisories;
        }
    }

    /**
     * @param more issue 30's figures
     * @param passed whether the run still passes (false: the reason is put first in the
     * notes)
     * @param why why it fails, or empty
     * @param note more notes, or empty
     * @return this row with those figures
     */
    Row with(Watched more, boolean passed, String why, String note) {
        String notes = String.join("; ", Stream.of(why, this.notes, note).filter(s -> !s.isBlank()).toList());
        return new Row(scenario, run, this.passed && passed, expected, applied, parked, duplicated, alertsExpected,
                alertsGot, twice, recovery, notes, more);
    }

    static String header() {
        return "| scenario | run | result | events expected | applied | parked | duplicated | alerts expected | "
                + "alerts got | written twice | stored twice | state missing | max-deliveries advisories "
                + "(parked) | workers declared unhealthy | state-write publishes | end-to-end | recovery | notes |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    String line() {
        return "| " + scenario + " | " + run + " | " + (passed ? "PASS" : "FAIL") + " | " + expected + " | " + applied
                + " | " + parked + " | " + duplicated + " | " + (alertsExpected < 0 ? "-" : alertsExpected) + " | "
                + (alertsExpected < 0 ? "-" : alertsGot) + " | " + figure(twice.written()) + " | "
                + figure(twice.stored()) + " | " + figure(twice.stateMissing()) + " | "
                + (watched.advisories() < 0 ? "-" : watched.advisories() + " (" + watched.parked() + ")") + " | "
                + figure(watched.unhealthy()) + " | " + figure(watched.stateWrites()) + " | "
                + (watched.seconds() < 0 ? "-" : String.format(Locale.ROOT, "%.1f s", watched.seconds())) + " | "
                + recovery + " | " + notes.replace("|", "/") + " |";
    }

    private static String figure(long value) {
        return value < 0 ? "-" : String.valueOf(value);
    }
}
