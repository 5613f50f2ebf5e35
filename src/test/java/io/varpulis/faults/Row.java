package io.varpulis.faults;

/**
 * One run's figures, a row of the results table.
 *
 * @param scenario       the scenario ({@code a} to {@code e})
 * @param run            its run number
 * @param passed         whether the run met its bar (exit 0, exactly the reference alerts, nothing valid parked or
 *                       lost)
 * @param expected       events that had to be applied (failures the log holds; events published in {@code e})
 * @param applied        events applied
 * @param parked         events parked that were not poison (must be 0), with the poison parked as expected after a
 *                       slash when there is some
 * @param duplicated     events stored twice on an edge
 * @param alertsExpected alerts of the reference run, or -1 when the scenario has none
 * @param alertsGot      alerts written
 * @param notes          what else was measured (election time, retries, the fault's timing) or why it failed
 */
record Row(String scenario, int run, boolean passed, long expected, long applied, String parked, long duplicated,
           long alertsExpected, long alertsGot, String notes) {

    static String header() {
        return "| scenario | run | result | events expected | applied | parked | duplicated | alerts expected | "
                + "alerts got | notes |\n|---|---|---|---|---|---|---|---|---|---|";
    }

    String line() {
        return "| " + scenario + " | " + run + " | " + (passed ? "PASS" : "FAIL") + " | " + expected + " | " + applied
                + " | " + parked + " | " + duplicated + " | " + (alertsExpected < 0 ? "-" : alertsExpected) + " | "
                + (alertsExpected < 0 ? "-" : alertsGot) + " | " + notes.replace("|", "/") + " |";
    }
}
