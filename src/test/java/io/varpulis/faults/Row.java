package io.varpulis.faults;

/**
 * One run's figures, a row of the results table.
 *
 * @param scenario       the scenario ({@code a} to {@code e}, {@code pause-alerts}, ...)
 * @param run            its run number
 * @param passed         whether the run met its bar (exit 0, exactly the reference alerts, nothing valid parked or
 *                       lost, no alert written or stored twice, no window's state missing)
 * @param expected       events that had to be applied (failures the log holds; events published in {@code e})
 * @param applied        events applied
 * @param parked         events parked that were not poison (must be 0), with the poison parked as expected after a
 *                       slash when there is some
 * @param duplicated     events stored twice on an edge
 * @param alertsExpected alerts of the reference run, or -1 when the scenario has none
 * @param alertsGot      distinct alerts written
 * @param twice          alerts written twice, stored twice, state missing ({@link Twice#NONE} where not measured)
 * @param recovery       how long the cluster took to recover (a new placement, a new leader), or {@code -}
 * @param notes          what else was measured (election time, retries, the fault's timing) or why it failed
 */
record Row(String scenario, int run, boolean passed, long expected, long applied, String parked, long duplicated,
           long alertsExpected, long alertsGot, Twice twice, String recovery, String notes) {

    /**
     * What exactly-once forbids, counted from the demo's report and alert file.
     *
     * @param written      alert lines in the alert file beyond the first of their identity (src_ip, window_start)
     * @param stored       alerts stored by {@code detect} beyond the expected ones: distinct message ids over the
     *                     reference's count, plus copies of one id
     * @param stateMissing failure events whose window in {@code detect}'s state is not the reference's
     */
    record Twice(long written, long stored, long stateMissing) {

        /** Not measured (a scenario without the demo). */
        static final Twice NONE = new Twice(-1, -1, -1);

        /** @return whether nothing was written or stored twice and no state is missing */
        boolean exact() {
            return written <= 0 && stored <= 0 && stateMissing <= 0;
        }
    }

    static String header() {
        return "| scenario | run | result | events expected | applied | parked | duplicated | alerts expected | "
                + "alerts got | written twice | stored twice | state missing | recovery | notes |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    String line() {
        return "| " + scenario + " | " + run + " | " + (passed ? "PASS" : "FAIL") + " | " + expected + " | " + applied
                + " | " + parked + " | " + duplicated + " | " + (alertsExpected < 0 ? "-" : alertsExpected) + " | "
                + (alertsExpected < 0 ? "-" : alertsGot) + " | " + figure(twice.written()) + " | "
                + figure(twice.stored()) + " | " + figure(twice.stateMissing()) + " | " + recovery + " | "
                + notes.replace("|", "/") + " |";
    }

    private static String figure(long value) {
        return value < 0 ? "-" : String.valueOf(value);
    }
}
