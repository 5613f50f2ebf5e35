#!/usr/bin/env bash
# Issue 11's fault suite: starts real nats-servers, runs the main job from the jar against them, injects each fault
# while the job streams, and prints the figures of every run (events expected, applied, parked, duplicated, alerts
# expected and got) as a Markdown table, also written to target/faults/results.md. Exit 0 only when every run passed.
#
#   scripts/faults.sh                                   # a, b, c, d, e once each on the 100 000-line log
#   scripts/faults.sh --scenarios=b --runs=5            # "5 runs of 5" of the leader kill
#   scripts/faults.sh --scenarios=e                     # bad input only (no demo needed)
#   scripts/faults.sh --scenarios=sync                  # what sync_interval: always costs on 3 servers (R3)
#   scripts/faults.sh --scenarios=a,b --days=5          # a development run on 10 000 lines
#
# Scenarios: a (one server, file storage, killed -9 a third into the stream, restarted 5 s later), b (three servers,
# R3, the routing stream's leader killed -9 a third into the stream at 20 000 lines/s, restarted 20 s later; the
# election is timed), c (a worker and the coordinator killed -9 together half-way), d (NATS stopped for 60 s a third
# into the stream), e (non-JSON, invalid UTF-8, near max_payload and a 10 000-character event type published onto a
# routing subject), sync. Options: --runs --days (the log: the bundled sample over that many days, 50 by default,
# made once by scripts/make-log.sh into target/faults) --input=PATH (another log) --rate-a --rate-b --rate-c --rate-d
# --outage=SECONDS --restart=SECONDS --jar=PATH. The main job keeps its node logs (--keep-logs) for the harness to
# count broker waits, mended state chains and fenced pipelines, then the harness removes them.
#
# The servers are the nats-server of VARPULIS_NATS_SERVER (else PATH; scripts/install-nats-server.sh 2.9 2.12 prints
# the paths), on free 127.0.0.1 ports with stores in temp dirs deleted at the end; never a server on 4222. Figures
# taken while other builds run are noise: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ./mvnw -q -B -DskipTests package >target-faults-package.log 2>&1; then
  echo "faults: './mvnw package' failed (see target-faults-package.log)" >&2
  exit 2
fi
rm -f target-faults-package.log
./mvnw -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/faults-classpath.txt

exec java ${FAULTS_JAVA_OPTS:-} -cp "target/test-classes:target/classes:$(cat target/faults-classpath.txt)" \
  io.varpulis.faults.FaultMain "$@"
