#!/usr/bin/env bash
# The fault suite's pause scenarios for CI (issue 25): the worker hosting alerts, the worker hosting detect and the
# leading coordinator (of two) each SIGSTOPped for 10 s a third into the stream, then resumed, each once on its own
# fresh nats-server, each checked by the demo's exact report (no alert written or stored twice, no state missing).
# A smaller job than scripts/faults.sh's defaults, at the same 3 000 lines/s (the rate at which a paused alerts worker
# wrote alerts twice): the sample over 30 days (60 000 lines, 480 alerts), a 20 s stream, so that the pause and 5 s
# after the resume land before the report. Exit 0 only when every run passed; the table is in
# target/faults/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export VARPULIS_NATS_SERVER="${VARPULIS_NATS_SERVER:-$(scripts/install-nats-server.sh 2.12 | awk '{print $3}')}"
exec scripts/faults.sh --scenarios=pause-alerts,pause-detect,pause-leader --days=30 --rate=3000 --pause=10 "$@"
