package io.varpulis.bench;

/** Closing without letting a failed close hide the result of a run. */
final class Closing {

    private Closing() {
    }

    static void quietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception e) {
            System.err.println("closing " + closeable + ": " + e);
        }
    }

}
