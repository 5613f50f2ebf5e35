#!/usr/bin/env bash
# Issue 43's soak, in the fault suite's style (scripts/faults.sh builds the jar and the test classpath, installs the
# tools, and runs io.varpulis.faults.SoakMain instead of FaultMain): the main job streaming the sample log at a steady
# rate for --minutes on three nats-servers (sync_interval: always, R3 streams and state) with two coordinators and
# three workers; a random nemesis every 1-3 minutes (kill -9 of a worker and its restart, a node SIGSTOPped and
# SIGCONTed, a leader step-down of the routing stream or detect's state bucket, a rolling restart of a node (SIGTERM,
# then started again), a lame-duck restart of a server, a server partitioned from its peers), drawn from a seed that
# is printed; every node process (and the demo's feeder JVM) sampled every 10 s: RSS, heap after a full GC, threads,
# open file descriptors. At the end: the demo's verdict (exact or not) as the fault suite's row, each series' slope
# over the last 20 minutes and whether it is flat, in target/soak/<run>/ (report.md, samples.csv, soak.svg).
# Exit 0 only when the job was exact and every judged series flat.
#
#   scripts/soak.sh                           # 30 minutes, a random seed (printed)
#   scripts/soak.sh --minutes 2               # a smoke: a couple of minutes, at most one nemesis
#   scripts/soak.sh --minutes=30 --seed=42    # repeats the schedule of seed 42 (which nemesis, when, on what)
#   scripts/soak.sh --minutes=5 --every=20-40 --nemeses=lame-duck,partition   # develop a few nemeses
#
# Options: --minutes (30) --seed --rate (55 lines/s) --every=MIN-MAX seconds (60-180) --nemeses=kill-worker,pause,
# step-down,rolling-restart,lame-duck,partition --pause=SECONDS (20) --cut=SECONDS (30) --jar=PATH. A heavy run:
# take the team's lock (flock /tmp/varpulis-heavy.lock scripts/soak.sh ...). The servers are the nats-server of
# VARPULIS_NATS_SERVER (else PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
FAULTS_MAIN=SoakMain exec scripts/faults.sh "$@"
