#!/usr/bin/env bash
# The fault suite's pause scenarios for CI (issue 25): the worker hosting alerts, the worker hosting detect and the
# leading coordinator (of two) each SIGSTOPped for 10 s a third into the stream, then resumed, each once on its own
# fresh nats-server, each checked by the demo's exact report (no alert written or stored twice, no state missing).
# A smaller job than scripts/faults.sh's defaults: the sample over 5 days (10 000 lines, 80 alerts) at 300 lines/s, a
# 33 s stream, so that the pause and 5 s after the resume land inside it. Exit 0 only when every run passed; the table
# is in target/faults/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export VARPULIS_NATS_SERVER="${VARPULIS_NATS_SERVER:-$(scripts/install-nats-server.sh 2.12 | awk '{print $3}')}"
exec scripts/faults.sh --scenarios=pause-alerts,pause-detect,pause-leader --days=5 --rate=300 --pause=10 "$@"
