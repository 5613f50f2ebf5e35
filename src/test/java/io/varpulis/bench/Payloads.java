package io.varpulis.bench;

import java.nio.charset.StandardCharsets;

/**
 * The routed events of the benchmarks: the SPEC section 6 JSON of an sshd failure, padded
 * to {@link #SIZE} bytes, with a fixed-width sequence number at a fixed offset so a
 * consumer can read it without a JSON parser (the raw baselines do not decode unless
 * {@code --baseline=raw-decode}; the product does, because its route ingress always
 * does).
 */
final class Payloads {

    /** Bytes per event: "about 200 bytes" (issue 7). */
    static final int SIZE = 200;

    private static final int SEQ_DIGITS = 10;

    private static final String PREFIX = "{\"event_type\":\"SshAuthFailure\",\"timestamp\":\"2026-11-30T12:00:00Z\","
            + "\"fields\":{\"seq\":\"";

    private static final int SEQ_OFFSET = PREFIX.length();

    private Payloads() {
    }

    /**
     * @param seq the event's sequence number, 0 based
     * @return its payload, exactly {@link #SIZE} bytes of JSON
     */
    static byte[] event(long seq) {
        String digits = Long.toString(seq);
        String head = PREFIX + "0".repeat(SEQ_DIGITS - digits.length()) + digits + "\",\"src_ip\":\"10.0."
                + (seq >> 8 & 0xff) + "." + (seq & 0xff) + "\",\"user\":\"root\",\"port\":\"" + (1024 + seq % 60000)
                + "\",\"host\":\"bastion-01\",\"pad\":\"";
        String tail = "\"}}";
        int pad = SIZE - head.length() - tail.length();
        if (pad < 0) {
            throw new IllegalStateException("payload head is longer than " + SIZE + " bytes");
        }
        return (head + "x".repeat(pad) + tail).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param count how many
     * @return payloads 0 to count - 1, built before a timed run so that building them is
     * not timed
     */
    static byte[][] events(int count) {
        byte[][] payloads = new byte[count][];
        for (int i = 0; i < count; i++) {
            payloads[i] = event(i);
        }
        return payloads;
    }

    /**
     * @param payload a payload made by {@link #event(long)}
     * @return its sequence number
     */
    static int seq(byte[] payload) {
        int value = 0;
        for (int i = SEQ_OFFSET; i < SEQ_OFFSET + SEQ_DIGITS; i++) {
            value = value * 10 + (payload[i] - '0');
        }
        return value;
    }

}
