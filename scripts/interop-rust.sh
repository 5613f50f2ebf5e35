#!/usr/bin/env bash
# Mixed fleet with the real Rust Varpulis node (issue 26, SPEC section 17): varpulis-cli 0.11.0 from crates.io, built
# and cached by scripts/install-varpulis-rust.sh, beside this jar on one JetStream nats-server. Each check prints
# PASS or FAIL with what it saw; the exit status is 1 when one failed, 2 when the set-up failed.
#
#   scripts/interop-rust.sh [--jar=PATH] [--keep]      --keep: leave the node logs in the printed directory
#
# 1 mixed-fleet   a Rust worker beside two of ours under our coordinator, a group running and 40 events injected:
#                 none lost, no pipeline placed or moved onto the Rust worker, no placement change (no flapping);
#                 the group's route b -> c is flat (payload_shape: flat): written in the connector's shape, and read
#                 back into fields (c filters on one)
# 2 restart       our coordinator restarted: the Rust worker, which does not know our register command, is admitted
#                 again from its heartbeats (no api-key), both sides' logs saying so
# 3 flat-event    an event in the flat shape of Varpulis's connector, published on a route: read into its fields
#                 (it passes a filter on a field) or parked with a reason, never applied empty
# 4 refused       a Rust worker with a wrong api-key: the reason is on the Rust side's log; a Rust worker with the
#                 right one, our keyed coordinator restarted: listed heartbeating_unregistered with the reason
# 5 rust-coord    a Rust coordinator with our worker: registered, heartbeats applied, a VPL deploy refused with the
#                 reason on the Rust coordinator's log and on our worker's
#
# The cached build (feature nats-transport) has no NATS connector (feature nats): the Rust node publishes and reads
# no routed events, so the flat shapes are checked against the connector's shape, not a Rust pipeline.
#
# The Rust binary is VARPULIS_RUST_BIN's when set, else the cached build; our nodes run with INTEROP_JAVA_OPTS
# (default: quick start, 256 MB heap). The nats-server is VARPULIS_NATS_SERVER's
# (else PATH's), on free 127.0.0.1 ports, its store in a temp dir deleted
# at the end. Needs java 17+, curl, python3; cargo only when the Rust binary is not cached yet (a long build).
set -euo pipefail
cd "$(dirname "$0")/.."

jar=""
keep=false
for arg in "$@"; do
  case "$arg" in
    --jar=*) jar="${arg#--jar=}" ;;
    --keep) keep=true ;;
    *) echo "interop-rust: unknown option $arg (expected --jar=PATH, --keep)" >&2; exit 2 ;;
  esac
done

say() { echo "interop-rust: $*" >&2; }
setup_failed() { say "$*"; exit 2; }

rust="${VARPULIS_RUST_BIN:-}"
[ -n "$rust" ] || rust=$(scripts/install-varpulis-rust.sh) \
  || setup_failed "no Rust Varpulis binary (scripts/install-varpulis-rust.sh, or VARPULIS_RUST_BIN=<path>)"
rust=$(realpath "$rust")
nats="${VARPULIS_NATS_SERVER:-$(command -v nats-server || true)}"
[ -x "$nats" ] || setup_failed "no nats-server: set VARPULIS_NATS_SERVER (scripts/install-nats-server.sh prints paths)"
if [ -z "$jar" ]; then
  executable() { for j in target/varpulis-cluster-*.jar; do
    [ -f "$j" ] && unzip -l "$j" 2>/dev/null | grep 'BOOT-INF/' >/dev/null && { echo "$j"; return; }; done; true; }
  jar=$(executable)
  if [ -z "$jar" ]; then
    say "building the jar (./mvnw package -DskipTests)"
    ./mvnw -q -B -ntp -DskipTests package >&2 || setup_failed "./mvnw package failed"
    jar=$(executable)
  fi
fi
[ -f "$jar" ] || setup_failed "no executable jar (give --jar=PATH)"

work=$(mktemp -d "${TMPDIR:-/tmp}/interop-rust.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if $keep; then say "node logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
failures=0
check() { # check NAME OK DETAIL
  if [ "$2" = true ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; failures=$((failures + 1)); fi
}
# wait_for SECONDS COMMAND...: true once the command succeeds, false after the time is up
wait_for() {
  local until=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do [ $SECONDS -lt $until ] || return 1; sleep 1; done
}

nats_port=$(free_port)
nats_url="nats://127.0.0.1:$nats_port"
"$nats" -a 127.0.0.1 -p "$nats_port" -js -sd "$work/jetstream" >"$work/nats.log" 2>&1 &
pids+=($!)
wait_for 20 python3 -c "import socket; socket.create_connection(('127.0.0.1', $nats_port), 1)" \
  || setup_failed "nats-server did not start (log: $work/nats.log)"

password=interop-admin-password
declare -A node_pid node_port
# start_ours NAME ROLE ARGS...: one node of ours, its log in $work/NAME.log
start_ours() {
  local name=$1 role=$2; shift 2
  local port; port=$(free_port)
  # Quick to start, small: a functional check, not a benchmark (INTEROP_JAVA_OPTS replaces these).
  java ${INTEROP_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m} -jar "$jar" \
    --varpulis.cluster.role="$role" --varpulis.nats.url="$nats_url" \
    --varpulis.nats.substrate=jetstream --server.port="$port" --server.address=127.0.0.1 \
    --spring.security.user.password="$password" --varpulis.cluster.heartbeat-interval=1s \
    --varpulis.cluster.heartbeat-timeout=6s --varpulis.cluster.rebalance-delay=2s \
    --varpulis.cluster.exit-on-refusal=false "$@" >"$work/$name.log" 2>&1 &
  node_pid[$name]=$!
  node_port[$name]=$port
  pids+=($!)
}
stop() { kill "${node_pid[$1]}" 2>/dev/null || true; wait "${node_pid[$1]}" 2>/dev/null || true; }
# start_rust NAME ARGS...: the Rust node, its log in $work/NAME.log; run in its own directory there, where it writes
# its data/ (audit log), not in the checkout
start_rust() {
  local name=$1; shift
  mkdir -p "$work/$name"
  (cd "$work/$name" && RUST_LOG=info exec "$rust" "$@") >"$work/$name.log" 2>&1 &
  node_pid[$name]=$!
  pids+=($!)
}
api() { curl -sf -u "varpulis:$password" -H 'Content-Type: application/json' "$@"; }
coord() { local path=$1; shift; api "http://127.0.0.1:${node_port[c1]}/api/v1/cluster$path" "$@"; }
json() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
workers_listed() { coord /workers | json "' '.join(sorted(w['worker']['worker_id'] + ':' + w['worker']['status'] for w in d))"; }
has_worker() { workers_listed | grep -q "$1"; }
placement() { coord /pipeline-groups/mixed | json "json.dumps(d['placement'], sort_keys=True)"; }
# events_in PIPELINE: what the workers report the pipeline of group mixed applied
events_in() { coord /workers | json "sum(m['events_in'] for w in d for m in ((w['worker'].get('heartbeat') or {}).get('pipeline_metrics') or []) if m.get('group') == 'mixed' and m['pipeline_name'] == '$1')"; }
count_is() { [ "$(events_in "$1")" = "$2" ]; }
inject() { coord /pipeline-groups/mixed/inject -d "$1" >/dev/null; }

say "nats-server $nats_url, jar $jar, Rust node $rust, logs in $work"
start_ours c1 coordinator --varpulis.cluster.coordinator-id=c1
start_ours jw1 worker --varpulis.cluster.worker-id=jw1
start_ours jw2 worker --varpulis.cluster.worker-id=jw2
ours_up() { workers_listed | grep -q 'jw1:ready jw2:ready'; }
wait_for 300 ours_up \
  || setup_failed "our coordinator and workers did not come up (logs: $work/c1.log, jw1.log, jw2.log)"
hot='{"type": "filter", "settings": {"expression": "fields[\"temperature\"] != null and fields[\"temperature\"] > 100"}}'
coord /pipeline-groups -d '{"name": "mixed", "pipelines": [
    {"name": "a", "processor": {"type": "passthrough"}}, {"name": "b", "processor": '"$hot"'},
    {"name": "c", "processor": '"$hot"'}, {"name": "d", "processor": {"type": "passthrough"}}],
  "routes": [{"from_pipeline": "_external", "to_pipeline": "a"}, {"from_pipeline": "a", "to_pipeline": "b"},
    {"from_pipeline": "b", "to_pipeline": "c", "payload_shape": "flat"}, {"from_pipeline": "c", "to_pipeline": "d"}]}' \
  >/dev/null || setup_failed "group mixed was not declared"
placed() { [ "$(placement | json 'len(d)')" = 4 ]; }
wait_for 60 placed \
  || setup_failed "group mixed was not placed (log: $work/c1.log)"

# 1. mixed-fleet
start_rust rw1 server --port "$(free_port)" --bind 127.0.0.1 --coordinator "http://127.0.0.1:${node_port[c1]}" \
  --worker-id rw1 --nats "$nats_url"
if wait_for 90 has_worker 'rw1:ready'; then rust_joined=true; else rust_joined=false; fi
check rust-registers "$rust_joined" "the Rust worker is listed by our coordinator: $(workers_listed)"
settled=$(placement)
# The first message on the flat route, as a Rust consumer would receive it (a core subscriber sees JetStream's too).
python3 - "$nats_port" >"$work/flat-sample.json" 2>/dev/null <<'EOF' &
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.settimeout(120)
s.sendall(b'CONNECT {"verbose": false}\r\nSUB varpulis.cluster.pipeline.mixed.b.c 1\r\n')
data = b""
while True:
    data += s.recv(65536)
    at = data.find(b"MSG ")
    if at >= 0 and b"\r\n" in data[at:]:
        header, rest = data[at:].split(b"\r\n", 1)
        size = int(header.split()[-1])
        if len(rest) >= size:
            print(rest[:size].decode())
            break
EOF
sampler=$!
pids+=($sampler)
flapped=false
for i in $(seq 1 40); do
  inject "{\"event_type\": \"Reading\", \"fields\": {\"n\": $i, \"temperature\": 150}}"
  [ $((i % 4)) -eq 0 ] && { sleep 1; [ "$(placement)" = "$settled" ] || flapped=true; }
done
if wait_for 60 count_is d 40; then all_in=true; else all_in=false; fi
check mixed-fleet-nothing-lost "$all_in" "pipeline d applied $(events_in d) of 40 events"
wait "$sampler" 2>/dev/null || true
sample=$(cat "$work/flat-sample.json")
flat_ok=$(echo "$sample" | json "'fields' not in d and d.get('temperature') == 150 and 'event_type' in d" 2>/dev/null || echo False)
check flat-output "$([ "$flat_ok" = True ] && [ "$all_in" = true ] && echo true || echo false)" \
  "route b -> c written flat: ${sample:-nothing seen}; read back into fields: c's filter passed $(events_in d) of 40"
onto_rust=$(grep -cE '(placed on|to) worker rw1' "$work/c1.log" || true)
check mixed-fleet-no-move-onto-rust "$([ "$onto_rust" = 0 ] && echo true || echo false)" \
  "$onto_rust placement(s) or move(s) onto rw1 in our coordinator's log; Rust log deploys: $(grep -c 'Deploy' "$work/rw1.log" || true)"
check mixed-fleet-no-flapping "$([ $flapped = false ] && [ "$(placement)" = "$settled" ] && echo true || echo false)" \
  "placement $settled, now $(placement)"

# 3. flat-event: published as Varpulis's connector writes it, on the group's external edge
python3 - "$nats_port" <<'EOF'
import socket, sys
payload = b'{"event_type": "Reading", "timestamp": "2026-12-02T12:00:00Z", "n": 1000, "temperature": 150}'
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.recv(4096)
s.sendall(b'CONNECT {"verbose": false}\r\nPUB varpulis.cluster.pipeline.mixed._external.a %d\r\n%s\r\nPING\r\n'
          % (len(payload), payload))
s.recv(4096)
s.close()
EOF
if wait_for 30 count_is d 41; then
  check flat-event true "read: it passed the filters on fields['temperature'] and reached d (41 events)"
else
  parked=$(coord "/dlq?unit=mixed" 2>/dev/null || true)
  check flat-event "$(echo "$parked" | grep -q 'shape' && echo true || echo false)" \
    "not read into fields (d applied $(events_in d)); parked: ${parked:-nothing}"
fi

# 2. restart
stop c1
start_ours c1 coordinator --varpulis.cluster.coordinator-id=c1
if wait_for 300 has_worker 'rw1:ready'; then relisted=true; else relisted=false; fi
admitted=$(grep -m1 -o 'worker rw1 admitted from its heartbeats[^(]*' "$work/c1.log" | cut -c1-160 || true)
asked=$(grep -m1 -o 'Unknown command: register' "$work/rw1.log" || true)
check restart "$([ $relisted = true ] && [ -n "$admitted" ] && [ -n "$asked" ] && echo true || echo false)" \
  "after our coordinator restarted: $(workers_listed 2>/dev/null || echo 'no answer'); ours: ${admitted:-nothing}; Rust: ${asked:-nothing}"
moved=$(grep -cE '(placed on|to) worker rw1' "$work/c1.log" || true)
check restart-no-move-onto-rust "$([ "$moved" = 0 ] && echo true || echo false)" "$moved placement(s) onto rw1 after its admission"

# 4. refused
stop rw1
stop c1
start_ours c1 coordinator --varpulis.cluster.coordinator-id=c1 --varpulis.cluster.api-key=the-right-key
start_rust rw2 server --port "$(free_port)" --bind 127.0.0.1 --coordinator "http://127.0.0.1:${node_port[c1]}" \
  --worker-id rw2 --nats "$nats_url" --api-key a-wrong-key
if wait_for 300 grep -q 'invalid api_key' "$work/rw2.log"; then shown=true; else shown=false; fi
check refused "$shown" "the Rust worker's log: $(grep -m1 -o 'NATS registration failed.*invalid api_key.*' "$work/rw2.log" | cut -c1-220 || echo 'no refusal logged')"
start_rust rw3 server --port "$(free_port)" --bind 127.0.0.1 --coordinator "http://127.0.0.1:${node_port[c1]}" \
  --worker-id rw3 --nats "$nats_url" --api-key the-right-key
wait_for 90 has_worker 'rw3:ready' || say "rw3 did not register with the keyed coordinator"
stop c1
start_ours c1 coordinator --varpulis.cluster.coordinator-id=c1 --varpulis.cluster.api-key=the-right-key
if wait_for 300 has_worker "rw3:heartbeating_unregistered"; then kept_out=true; else kept_out=false; fi
reason=$(coord /workers 2>/dev/null | json "' '.join(w['worker'].get('reason', '') for w in d if w['worker']['worker_id'] == 'rw3')" || true)
check restart-keyed "$([ $kept_out = true ] && echo "$reason" | grep -q 'api-key' && echo true || echo false)" \
  "keyed coordinator restarted: $(workers_listed 2>/dev/null | tr ' ' '\n' | grep rw3 || echo 'rw3 not listed') (reason: ${reason:-none}); Rust: $(grep -m1 -o 'Unknown command: register' "$work/rw3.log" || echo nothing)"

# 5. rust-coord: a Rust coordinator and one worker of ours
stop rw2
stop rw3
stop c1
stop jw1
stop jw2
rust_port=$(free_port)
start_rust rc coordinator --port "$rust_port" --bind 127.0.0.1 --nats "$nats_url" --heartbeat-interval 1 \
  --heartbeat-timeout 5 \
  --allow-anonymous
start_ours jw9 worker --varpulis.cluster.worker-id=jw9
rust_workers() { curl -sf "http://127.0.0.1:$rust_port/api/v1/cluster/workers"; }
jw9_listed() { rust_workers | grep -q jw9; }
if wait_for 300 jw9_listed; then
  under_rust=true; else under_rust=false; fi
check rust-coord-registration "$under_rust" "the Rust coordinator lists: $(rust_workers | cut -c1-300 || echo 'no answer')"
# Past the Rust coordinator's heartbeat-timeout (5 s): still ready only if our heartbeats were applied.
sleep 10
jw9_status=$(rust_workers | json "' '.join(w['status'] for w in d['workers'] if w['id'] == 'jw9')" 2>/dev/null || true)
check rust-coord-heartbeats "$([ "$jw9_status" = ready ] && echo true || echo false)" \
  "jw9 is '$jw9_status' at the Rust coordinator 10 s after its heartbeat-timeout started counting"
deploy=$(curl -s -H 'Content-Type: application/json' "http://127.0.0.1:$rust_port/api/v1/cluster/pipeline-groups" \
  -d '{"name": "vpl", "pipelines": [{"name": "p1", "source": "stream A = Sensor .where(temperature > 100)"}]}' || true)
if wait_for 30 grep -q 'deploy of a VPL program' "$work/rc.log" && grep -q 'deploy of a VPL program' "$work/jw9.log"
then refusedvpl=true; else refusedvpl=false; fi
check rust-coord-deploy-refused "$refusedvpl" "the Rust coordinator's log: $(grep -m1 -o 'Failed to deploy pipeline.*' "$work/rc.log" | cut -c1-260 || echo 'no refusal logged'); our worker: $(grep -m1 -o 'deploy of a VPL program[^;]*' "$work/jw9.log" || echo 'no refusal logged'); its HTTP answer: $(echo "$deploy" | cut -c1-160)"

echo "interop-rust: $failures check(s) failed"
[ "$failures" = 0 ]
