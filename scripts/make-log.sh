#!/usr/bin/env bash
# Makes a long sshd log from the bundled loghub sample (2 000 lines of 10 December) by replicating it over
# consecutive days: day 0 is the sample as it is, day d has every timestamp d days later. 50 days (the default) give
# the 100 000-line log of the fault suite and the main-job benchmark; windows never span two days, so its alert set
# is the sample's repeated each day (16 alerts a day under SPEC section 7, 800 in all).
#
#   scripts/make-log.sh OUT                                   # 50 days, RFC 3164 headers (Dec 10 .. Jan 28)
#   scripts/make-log.sh --days 3 --form rfc3339 --year 2026 OUT
#
# --form rfc3164 keeps the sample's "Mmm dd hh:mm:ss" headers (the demo reads them with --year, default this year);
# --form rfc3339 writes "YYYY-MM-DDThh:mm:ss.000000+00:00" (rsyslog's high-precision format) with --year as the year
# of 10 December (default: this year, UTC). --input replicates another RFC 3164 log. Lines end with LF.
# The loghub license notice travels with every copy of its data: LOGHUB-LICENSE.txt is written next to OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

days=50 form=rfc3164 year=$(date -u +%Y) input=src/main/resources/sample/OpenSSH_2k.log out=
while [ $# -gt 0 ]; do
  case "$1" in
    --days) days="$2"; shift 2 ;;
    --form) form="$2"; shift 2 ;;
    --year) year="$2"; shift 2 ;;
    --input) input="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "make-log: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { echo "make-log: name the output file (see --help)" >&2; exit 2; }
case "$days" in ''|*[!0-9]*) echo "make-log: --days needs a whole number, got '$days'" >&2; exit 2 ;; esac
case "$form" in rfc3164|rfc3339) ;; *) echo "make-log: --form is rfc3164 or rfc3339, got '$form'" >&2; exit 2 ;; esac
case "$year" in [0-9][0-9][0-9][0-9]) ;; *) echo "make-log: --year needs four digits, got '$year'" >&2; exit 2 ;; esac
[ -r "$input" ] || { echo "make-log: cannot read $input" >&2; exit 2; }

# Plain POSIX awk (mawk, busybox): the calendar is computed here rather than with gawk's mktime.
LC_ALL=C awk -v days="$days" -v form="$form" -v year="$year" '
  function leap(y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
  function length_of(m, y) { return m == 2 ? 28 + leap(y) : substr("312831303130313130313031", 2 * m - 1, 2) + 0 }
  BEGIN {
    split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", names, " ")
    for (i = 1; i <= 12; i++) number[names[i]] = i
  }
  { sub(/\r$/, ""); lines[NR] = $0 }
  END {
    for (d = 0; d < days; d++) {
      for (n = 1; n <= NR; n++) {
        line = lines[n]
        month = number[substr(line, 1, 3)]
        if (month == 0 || substr(line, 4, 1) != " ") { print line; continue }
        rest = substr(line, 5); sub(/^ /, "", rest)
        day = rest + 0; sub(/^[0-9]+ /, "", rest)
        # The log starts in the given year; a month earlier than the first line'"'"'s is the next year.
        if (first == 0) first = month
        y = year + (month < first)
        day += d
        while (day > length_of(month, y)) { day -= length_of(month, y); month++; if (month > 12) { month = 1; y++ } }
        if (form == "rfc3164") {
          printf "%s %2d %s\n", names[month], day, rest
        } else {
          printf "%04d-%02d-%02dT%s.000000+00:00%s\n", y, month, day, substr(rest, 1, 8), substr(rest, 9)
        }
      }
    }
  }' "$input" > "$out"
cp src/main/resources/sample/LOGHUB-LICENSE.txt "$(dirname "$out")/LOGHUB-LICENSE.txt"
echo "make-log: $(wc -l < "$out") lines ($days days of $(basename "$input"), $form) in $out; license notice in $(dirname "$out")/LOGHUB-LICENSE.txt" >&2
