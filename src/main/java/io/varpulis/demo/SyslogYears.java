package io.varpulis.demo;

import java.util.List;
import java.util.Locale;

/**
 * Syslog lines carry no year. Reading a log in order, the year is the starting one until
 * the month goes back (a {@code Jan} line after a {@code Dec} line), then the next: a log
 * that crosses New Year keeps its windows.
 */
final class SyslogYears {

    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
            "oct", "nov", "dec");

    private SyslogYears() {
    }

    /**
     * @param lines the log, in order
     * @param firstYear the year of the first line
     * @return the year of each line; a line without a month keeps the year of the line
     * before
     */
    static int[] of(List<String> lines, int firstYear) {
        int[] years = new int[lines.size()];
        int year = firstYear;
        int previousMonth = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int month = line.length() < 3 ? -1 : MONTHS.indexOf(line.substring(0, 3).toLowerCase(Locale.ROOT));
            if (month >= 0) {
                if (previousMonth >= 0 && month < previousMonth) {
                    year++;
                }
                previousMonth = month;
            }
            years[i] = year;
        }
        return years;
    }

}
