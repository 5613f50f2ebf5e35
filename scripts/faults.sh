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
#   scripts/faults.sh --scenarios=pause-alerts,pause-detect,pause-leader --runs=3   # issue 25's node faults
#   scripts/faults.sh --scenarios=slow-fsync --fsync-delays=20,100                  # a slow disk on the leader
#   scripts/faults.sh --scenarios=slow-disk --runs=2                                # issue 30: n2's fsyncs 100 ms
#   scripts/faults.sh --scenarios=disk-full                                         # issue 30: a store fills
#   scripts/faults.sh --scenarios=no-fault,slow-disk --state-move-at=20 --runs=3    # issue 41: detect's state moved
#                                                                                   # onto slow n2 while it writes
#   scripts/faults.sh --scenarios=leader-churn --runs=3                             # issue 41: step-downs every 10 s
#   scripts/faults.sh --scenarios=power-loss --runs=3                               # issue 43: a power loss
#
# Scenarios: a (one server, file storage, killed -9 a third into the stream, restarted 5 s later), b (three servers,
# R3, the routing stream's leader killed -9 a third into the stream at 20 000 lines/s, restarted 20 s later; the
# election is timed), c (a worker and the coordinator killed -9 together half-way), d (NATS stopped for 60 s a third
# into the stream), e (non-JSON, invalid UTF-8, near max_payload and a 10 000-character event type published onto a
# routing subject), sync; issue 25's pause-alerts and pause-detect (the worker hosting that pipeline SIGSTOPped
# --pause=20 s, then SIGCONT), pause-leader (two coordinators, the leader SIGSTOPped --pause s), clock-ahead (two
# coordinators, the leader's clock --skew=30 s ahead with libfaketime), slow-fsync (three servers, sync_interval:
# always, every fsync of the routing and state leader delayed by each of --fsync-delays=20,100 ms for --slow-for=60 s
# with strace), small-store (three servers, one with max_file_store 64MB), partition (three servers in network
# namespaces of the script's own, the routing leader cut off from the others for --cut=30 s), all at --rate=3000
# lines/s, each a row with alerts written twice, stored twice, state missing and the recovery time; issue 30's
# slow-disk (three servers with sync_interval: always, n2 run from its start under strace with every fsync delayed
# --disk-delay=100 ms and made to lead the routing stream and detect's state; two coordinators, three workers) and
# disk-full (three servers on --store-mb=2048 MB tmpfs stores; a third into the stream the store of a worker's server
# filled for --full-for=20 s, that worker's readiness polled), each row with the max-deliveries advisories and how
# many were parked, workers declared unhealthy, state-write publishes and the end-to-end time; with --state-move-at=P,
# detect's state is led by n1 until P % of the input is stored, then moved onto n2 (issue 41). Issue 41's no-fault
# (slow-disk's topology, nothing injected) and leader-churn (the routing stream and detect's state stepped down every
# --step-every=10 s, no slow disk) add the same figures; issue 43's power-loss
# (three servers, each store on a LazyFS mount built by scripts/install-lazyfs.sh, two coordinators, three workers;
# --power-loss-at=8 s into the stream all three SIGKILLed at once and their unsynced data dropped at once, started
# again --power-off=3 s after the kill; one row per --syncs=always,default: sync_interval: always, and the server's
# default), each row with the stores' bytes before and after the loss and when new events flowed again. Options: --runs --days
# (the log: the bundled sample over that many days, 50 by default,
# made once by scripts/make-log.sh into target/faults) --input=PATH (another log) --rate-a --rate-b --rate-c --rate-d
# --outage=SECONDS --restart=SECONDS --jar=PATH. The main job keeps its node logs (--keep-logs) for the harness to
# count broker waits, mended state chains and fenced pipelines, then the harness removes them.
#
# FAULTS_MAIN=SoakMain runs issue 43's soak instead of FaultMain (scripts/soak.sh does).
# The servers are the nats-server of VARPULIS_NATS_SERVER (else PATH; scripts/install-nats-server.sh 2.9 2.12 prints
# the paths), on free 127.0.0.1 ports with stores in temp dirs deleted at the end; never a server on 4222. Figures
# taken while other builds run are noise: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tools of issue 25's scenarios, from Debian's packages when missing (root, as CI and the developers are).
missing=()
command -v strace >/dev/null || missing+=(strace)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || missing+=(faketime)
command -v iptables >/dev/null || missing+=(iptables)
command -v ip >/dev/null || missing+=(iproute2)
# Issue 43's power-loss: LazyFS, built from its source once (scripts/install-lazyfs.sh caches it).
if [[ " $* " == *power-loss* ]] && [ -z "${VARPULIS_LAZYFS:-}" ]; then
  if lazyfs=$(scripts/install-lazyfs.sh); then
    export VARPULIS_LAZYFS="${lazyfs##* }"
  else
    echo "faults: scripts/install-lazyfs.sh failed; power-loss will fail" >&2
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "faults: installing ${missing[*]}" >&2
  if ! { apt-get install -y "${missing[@]}" >/dev/null 2>&1 \
         || { apt-get update >/dev/null 2>&1 && apt-get install -y "${missing[@]}" >/dev/null 2>&1; }; }; then
    echo "faults: cannot install ${missing[*]} (apt-get as root); the scenarios that need them will fail" >&2
  fi
fi

# Scenario partition's namespaces and bridge (PartitionedCluster), disk-full's tmpfs stores and power-loss's LazyFS
# mounts (LoopbackCluster, under a temp dir faults-disk-*), removed however the run ends.
cleanup() {
  for ns in vf25-n1 vf25-n2 vf25-n3; do ip netns del "$ns" 2>/dev/null || true; done
  ip link del vf25br 2>/dev/null || true
  # (|| true: under set -e a failing pipeline here would turn the script's exit status into 1)
  { findmnt -rn -t tmpfs -o TARGET 2>/dev/null | grep '/faults-disk-' || true; } | while read -r mount; do
    umount -l "$mount" 2>/dev/null || true
  done
  # power-loss's LazyFS mounts (LazyFsStores, under the cluster's temp dir faults-disk-*).
  { findmnt -rn -t fuse.lazyfs -o TARGET 2>/dev/null | grep '/faults-disk-' || true; } | while read -r mount; do
    fusermount3 -uz "$mount" 2>/dev/null || true
  done
}
trap cleanup EXIT

if ! ./mvnw -q -B -DskipTests package >target-faults-package.log 2>&1; then
  echo "faults: './mvnw package' failed (see target-faults-package.log)" >&2
  exit 2
fi
rm -f target-faults-package.log
./mvnw -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/faults-classpath.txt

java ${FAULTS_JAVA_OPTS:-} -cp "target/test-classes:target/classes:$(cat target/faults-classpath.txt)" \
  "io.varpulis.faults.${FAULTS_MAIN:-FaultMain}" "$@"
