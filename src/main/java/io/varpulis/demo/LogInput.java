package io.varpulis.demo;

import io.varpulis.bruteforce.SshEvents;
import io.varpulis.pipeline.Event;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's input: the lines of an sshd log ({@code --input}, or the bundled loghub
 * OpenSSH_2k sample), and the {@code SshLogLine} event each one is injected as (SPEC
 * section 7).
 */
final class LogInput {

    /**
     * The bundled sample, read when no {@code --input} is given (see
     * sample/LOGHUB-LICENSE.txt).
     */
    private static final String SAMPLE = "/sample/OpenSSH_2k.log";

    private LogInput() {
    }

    /**
     * One line of the input.
     *
     * @param text the line, decoded as UTF-8, or as ISO-8859-1 (every byte kept) when it
     * is not valid UTF-8
     * @param utf8 whether it was valid UTF-8
     */
    record LogLine(String text, boolean utf8) {
    }

    /**
     * @param input the log to read, or {@code null} for the bundled sample
     * @return its lines, as {@link #lines(byte[])} splits them
     * @throws IOException when the file cannot be read, or the sample is missing from the
     * jar
     */
    static List<LogLine> read(Path input) throws IOException {
        if (input != null) {
            return lines(Files.readAllBytes(input));
        }
        try (InputStream sample = LogInput.class.getResourceAsStream(SAMPLE)) {
            if (sample == null) {
                throw new IOException("the bundled sample log is missing from the jar; pass --input PATH");
            }
            return lines(sample.readAllBytes());
        }
    }

    /**
     * Splits a log into lines (LF or CRLF), skipping blank ones. A line that is not valid
     * UTF-8 is decoded as ISO-8859-1, which keeps every byte, and marked: it is then
     * parked with its text, never dropped nor parsed.
     */
    static List<LogLine> lines(byte[] log) {
        List<LogLine> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= log.length; i++) {
            if (i == log.length || log[i] == '\n') {
                int end = i > start && log[i - 1] == '\r' ? i - 1 : i;
                LogLine line = decode(Arrays.copyOfRange(log, start, end));
                if (!line.text().isBlank()) {
                    lines.add(line);
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static LogLine decode(byte[] line) {
        try {
            return new LogLine(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line)).toString(), true);
        }
        catch (CharacterCodingException e) {
            return new LogLine(new String(line, StandardCharsets.ISO_8859_1), false);
        }
    }

    /**
     * @param line a log line
     * @param number its 1-based line number
     * @param year the year of its RFC 3164 timestamp (see {@link SyslogYears})
     * @return the {@code SshLogLine} event injected for it: {@code {"line": text,
     * "line_number": n, "year": y}}, with {@code "charset": "ISO-8859-1"} when the line
     * is not valid UTF-8
     */
    static Event lineEvent(LogLine line, int number, int year) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put(SshEvents.LINE, line.text());
        fields.put(SshEvents.LINE_NUMBER, number);
        fields.put(SshEvents.YEAR, year);
        if (!line.utf8()) {
            fields.put(SshEvents.CHARSET, SshEvents.NOT_UTF8);
        }
        return Event.of(SshEvents.LOG_LINE, fields);
    }

}
