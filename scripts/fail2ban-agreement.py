#!/usr/bin/env python3
"""Holds the main job's alert set to fail2ban's: the alerts the demo writes for a log must be the windows that
fail2ban-regex's matches put at 5 or more failures of the kinds the demo counts (README.md, Quick start), under the
same rule (5-minute tumbling windows aligned to the epoch, per source).

    ./mvnw -B -ntp package -DskipTests            # the jar the demo runs from
    scripts/fail2ban-agreement.py src/test/resources/logs/forms/*.log src/main/resources/sample/OpenSSH_2k.log
    scripts/fail2ban-agreement.py --zone +02:00 src/test/resources/logs/forms/sshd-session.log
    scripts/fail2ban-agreement.py --demo-alerts alerts.jsonl --year 2025 LOG   # an alert file of an earlier run

For each log it runs fail2ban-regex (Debian's fail2ban 1.0.2 or later; installed with `apt-get install fail2ban`)
with the sshd filter, raw hosts (-r: no DNS lookup), and the demo (java -jar, a worker killed mid-stream unless
--kill none), then prints both sets and exits 1 when they differ.

fail2ban 1.0.2 reads some of the SPEC's forms differently; the copy of the log it is given is rewritten for those,
and the script says how many lines each rewrite touched:
  * `message repeated N times: [ LINE ]` is rsyslog's duplicate suppression, which fail2ban does not read: the
    copy holds LINE N times (what sshd logged);
  * a last line without its newline is skipped by fail2ban (it waits for the line to be finished): the copy ends
    with one;
  * `sshd-session` and `sshd-auth` (OpenSSH 9.8 and later) are not in 1.0.2's filter (fail2ban PR #3782 added
    sshd-session in 1.1.0): the filter runs with _daemon="sshd(?:-session|-auth)?";
  * the legacy `sshd(pam_unix)[pid]: authentication failure; ... rhost=H` is refused by fail2ban's pam-generic
    filter as pre-0.99.2 Linux-PAM: those lines are read by pam-generic from a copy in its accepted form,
    `sshd[pid]: (pam_unix) authentication failure; ...`.
Of the failures fail2ban's sshd filter finds, only `Failed METHOD` ones (METHOD not publickey) are SPEC failures;
the others (`Invalid user`, `maximum authentication attempts exceeded`, `Disconnecting: Too many authentication
failures`, `Failed publickey for invalid user`, ...) are counted by kind and left out, since sshd logs the same
attempt as a `Failed` line or the SPEC does not count it.
"""

import argparse
import collections
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WINDOW = 300
THRESHOLD = 5
DELIMITER = "@@failure"
RFC3164 = re.compile(r"^([A-Z][a-z]{2}) {1,2}\d{1,2} \d\d:\d\d:\d\d ")
MESSAGE = re.compile(r"^(?:[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d|\d{4}-\S+) \S+ ([^\s:]+): ?(.*)$")
REPEATED = re.compile(r"^(.*?)message repeated ([1-9]\d{0,8}) times: \[ ?(.*?) ?\]$")
LEGACY_PAM = re.compile(r"^(.* )sshd\(pam_unix\)(\[\d+\])?: (authentication failure;.*)$")
# The heads of the other failures fail2ban's sshd filter (normal mode) counts, for the report.
OTHER_KINDS = [(r"[Ii](?:nvalid|llegal) user", "Invalid user"),
               (r"maximum authentication attempts exceeded", "maximum authentication attempts exceeded"),
               (r"Disconnecting: Too many authentication failures", "Disconnecting: Too many authentication failures"),
               (r"Received disconnect from .*Auth fail", "Received disconnect: Auth fail"),
               (r"User .*not allowed because", "User not allowed"),
               (r"[Aa]uthentication (?:failure|error|failed) for", "Authentication failure for"),
               (r"User not known to the underlying authentication module", "User not known to PAM"),
               (r"ROOT LOGIN REFUSED", "ROOT LOGIN REFUSED"), (r"refused connect", "refused connect"),
               (r"Disconnecting .*Change of username or service not allowed", "Change of username not allowed")]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def rewrite(lines):
    """The copies fail2ban reads: (lines for the sshd filter, lines for pam-generic, counts of each rewrite)."""
    sshd, pam, counts = [], [], collections.Counter()
    for line in lines:
        legacy = LEGACY_PAM.match(line)
        if legacy:
            pam.append("%ssshd%s: (pam_unix) %s" % (legacy.group(1), legacy.group(2) or "", legacy.group(3)))
            counts["legacy PAM lines given to pam-generic in its form"] += 1
            continue
        repeated = REPEATED.match(line)
        if repeated:
            n = int(repeated.group(2))
            sshd.extend([repeated.group(1) + repeated.group(3)] * n)
            counts["message repeated lines expanded"] += 1
            counts["lines they expand to"] += n
            continue
        sshd.append(line)
    return sshd, pam, counts


def fail2ban(lines, filter_name, zone, work):
    """Runs fail2ban-regex on lines; returns one (epoch seconds, source, triggering line) per failure."""
    if not lines:
        return []
    path = os.path.join(work, "fail2ban-input.log")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    command = ["fail2ban-regex", "-r", "-o", DELIMITER + "\t<time>\t<ip>\t<matches>"]
    if zone:
        command.append("--timezone=UTC" + zone.replace(":", ""))
    command += [path, filter_name]
    result = subprocess.run(command, capture_output=True, text=True, encoding="utf-8")
    if result.returncode != 0:
        sys.exit("fail2ban-regex failed (%d): %s%s" % (result.returncode, result.stdout, result.stderr))
    failures, current = [], None
    for row in result.stdout.split("\n"):
        if row.startswith(DELIMITER + "\t"):
            if current:
                failures.append(current)
            _, time, source, match = row.split("\t", 3)
            current = [float(time), source, match]
        elif current and row:
            current[2] = row  # the failure's own line is the last of its matches
    if current:
        failures.append(current)
    return failures


def kind(line):
    """The SPEC kind of a line fail2ban counted: 'failed' when it is one, else a name for the report."""
    message = MESSAGE.match(line)
    content = message.group(2) if message else line
    content = re.sub(r"^(?:error|fatal): (?:PAM: )?", "", content)
    if content.startswith("(pam_unix) authentication failure;"):
        return "failed"
    failed = re.match(r"Failed (\S+) ", content)
    if failed:
        return "Failed publickey (invalid user)" if failed.group(1) == "publickey" else "failed"
    for head, name in OTHER_KINDS:
        if re.match(head, content):
            return name
    return " ".join(content.split()[:2])


def fail2ban_year(lines, failures, zone):
    """The year fail2ban gave the first RFC 3164 line (it guesses: this year, or the last when in the future)."""
    first = next((RFC3164.match(l).group(1) for l in lines if RFC3164.match(l)), None)
    if first is None:
        return None
    tz = datetime.timezone.utc if not zone else datetime.timezone(
        datetime.timedelta(hours=int(zone[0] + zone[1:3]), minutes=int(zone[0] + zone[4:6])))
    for time, _, line in failures:
        month = RFC3164.match(line)
        if month:
            dated = datetime.datetime.fromtimestamp(time, tz)
            return dated.year - (1 if MONTHS.index(month.group(1)) < MONTHS.index(first) else 0)
    return None


def alerts_of(failures):
    counts = collections.Counter()
    for time, source, _ in failures:
        counts[(source, int(time) // WINDOW * WINDOW)] += 1
    return {"%s %s" % (source, datetime.datetime.fromtimestamp(start, datetime.timezone.utc)
                       .strftime("%Y-%m-%dT%H:%M:%SZ")) for (source, start), n in counts.items() if n >= THRESHOLD}


def demo(log, year, zone, kill, rate, jar, work):
    alerts, summary = os.path.join(work, "alerts.jsonl"), os.path.join(work, "summary.json")
    command = ["java", "-jar", jar, "demo", "--input", log, "--alerts-out", alerts, "--summary-json", summary,
               "--rate", str(rate), "--kill", kill]
    if year:
        command += ["--year", str(year)]
    if zone:
        command += ["--zone", zone]
    print("  running: " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    report = result.stdout[result.stdout.find("== report =="):] if "== report ==" in result.stdout else result.stdout
    print("\n".join("  | " + l for l in report.rstrip().split("\n")[-8:]))
    if result.returncode != 0:
        print("  the demo exited %d: %s" % (result.returncode, result.stderr.strip()[-2000:]))
    with open(summary, encoding="utf-8") as f:
        counted = json.load(f).get("failures_counted")
    return read_alerts(alerts), counted, result.returncode


def read_alerts(path):
    found = set()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    alert = json.loads(line)
                    found.add("%s %s" % (alert["src_ip"], alert["window_start"]))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", help="sshd logs")
    parser.add_argument("--zone", help="offset of RFC 3164 timestamps, +hh:mm or -hh:mm (default UTC): fail2ban "
                        "takes fixed offsets only")
    parser.add_argument("--year", type=int, help="year of the first RFC 3164 line (default: fail2ban's guess)")
    parser.add_argument("--kill", default="worker", choices=["none", "worker", "worker+coordinator"])
    parser.add_argument("--rate", type=int, default=2000, help="lines per second the demo streams (default 2000)")
    parser.add_argument("--jar", default="target/varpulis-cluster-0.1.0-SNAPSHOT.jar")
    parser.add_argument("--demo-alerts", help="compare with this alert file instead of running the demo")
    args = parser.parse_args()
    if args.zone and not re.fullmatch(r"[+-]\d\d:\d\d", args.zone):
        parser.error("--zone takes +hh:mm or -hh:mm (fail2ban has no named zones)")
    if not shutil.which("fail2ban-regex"):
        sys.exit("fail2ban-regex is not installed (Debian/Ubuntu: apt-get install fail2ban)")
    if not args.demo_alerts and not os.path.exists(args.jar):
        sys.exit("no %s: build it with ./mvnw -B -ntp package -DskipTests, or pass --jar" % args.jar)
    version = subprocess.run(["fail2ban-regex", "-V"], capture_output=True, text=True).stdout.strip()
    disagreements = 0
    for log in args.logs:
        with open(log, encoding="utf-8") as f:
            text = f.read()
        lines = [l for l in text.replace("\r\n", "\n").split("\n") if l.strip()]
        sshd_lines, pam_lines, rewrites = rewrite(lines)
        if text and not text.endswith("\n"):
            rewrites["last line given its newline"] += 1
        with tempfile.TemporaryDirectory(prefix="fail2ban-agreement-") as work:
            found = fail2ban(sshd_lines, 'sshd[_daemon="sshd(?:-session|-auth)?"]', args.zone, work)
            found += fail2ban(pam_lines, "pam-generic", args.zone, work)
            kinds = collections.Counter(kind(line) for _, _, line in found)
            spec = [f for f in found if kind(f[2]) == "failed"]
            expected = alerts_of(spec)
            year = args.year or fail2ban_year(lines, found, args.zone)
            print("%s (%d lines)" % (log, len(lines)))
            print("  fail2ban-regex %s, sshd filter%s: %d failures of the demo's kinds -> %d alerts"
                  % (version, " and pam-generic" if pam_lines else "", len(spec), len(expected)))
            others = ", ".join("%s %d" % (k, n) for k, n in sorted(kinds.items()) if k != "failed")
            print("  left out, other kinds fail2ban counts: " + (others or "none"))
            print("  rewritten for fail2ban: " + (", ".join("%s %d" % (k, n) for k, n in rewrites.items())
                                                  or "nothing"))
            if args.demo_alerts:
                got, counted, status = read_alerts(args.demo_alerts), None, 0
            else:
                got, counted, status = demo(log, year, args.zone, args.kill, args.rate, args.jar, work)
        missing, unexpected = sorted(expected - got), sorted(got - expected)
        same = not missing and not unexpected and (counted is None or counted == len(spec)) and status == 0
        print("  demo: %d alerts%s; %s" % (len(got), "" if counted is None else ", %d failures counted" % counted,
                                           "AGREE" if same else "DISAGREE"))
        for alert in sorted(expected & got):
            print("    " + alert)
        if missing:
            print("  fail2ban only: " + ", ".join(missing))
        if unexpected:
            print("  demo only: " + ", ".join(unexpected))
        disagreements += 0 if same else 1
    print("%d of %d logs agree" % (len(args.logs) - disagreements, len(args.logs)))
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
