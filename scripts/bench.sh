#!/usr/bin/env bash
# Reproduces every figure of BENCHMARKS.md (issue 7) and prints the tables; they are also written to
# target/bench/results.md, with the logs of the nodes and of JMH next to them.
#
#   scripts/bench.sh                                    # everything, about 30 minutes on 2 cores (failover: 3 min a round)
#   scripts/bench.sh --scenarios=throughput --rounds=5  # one scenario
#   scripts/bench.sh --scenarios=throughput --rounds=5 --quiet-wait=0   # the hop table (issues 22, 23, 27) on a busy host
#   scripts/bench.sh --scenarios=mainjob --rounds=3     # the main job against fail2ban-regex and CrowdSec, one server
#   scripts/bench.sh --scenarios=mainjob --topology=r3  # the same on a 3-server cluster, R3 streams and state (issue 27)
#   scripts/bench.sh --scenarios=steady --rounds=3      # the main job at steady state: 1 000 000 lines, R1 then R3,
#                                                       # fail2ban-regex each round, CrowdSec in the first, nats-server 2.12.15
#                                                       # (issue 34; about 40 minutes on 2 cores)
#   scripts/bench.sh --scenarios=partitions --rounds=3  # the main job with detect in 1 and 2 partitions (issue 16)
#   scripts/bench.sh --scenarios=listener-outside --rounds=5 --quiet-wait=0   # a Boot service's @NatsListener against
#                                                       # a plain jnats consumer, fresh JVMs, 20 000 stored orders (issue 42)
#
# Scenarios: throughput, latency, memory, startup, failover, mainjob, steady, partitions, micro, listener-outside
# (default: all). Options:
# --events --warmup --rounds --rate --seconds --raw-batch --substrates=jetstream,core --jar=PATH --baseline=raw-decode
# (the JetStream baseline reads each event with Jackson too; every JetStream throughput round also runs raw jnats
# decoding with the product's EventCodec, to show the decode's own cost), --hop-clients=product,raw,raw-codec,
# product-traceparent,observed-10,observed-100,listener,listener-observed-10,raw-listener (the clients of a throughput round, all by default: the product observed at 10 %
# and 100 % sampling, issue 23; a @NatsListener fed by NatsTemplate, issue 22, and a plain jnats consumer doing its
# work, issue 34), --hop-mode=live|stored (stored: every event stored first, the consumer timed alone, as a service
# reads a backlog; issue 34's listener target), --quiet-wait=SECONDS (how long a timed
# run waits for other processes to take under 10 % of the CPU, default 60; 0 on a host that is never quiet), for
# partitions --days (of the sample, 2 000 lines a day, default 10) --line-rate (lines/s streamed, default 20 000), and
# for mainjob and steady --topology=r1|r3|r1,r3 (default r1 for mainjob, r1,r3 for steady), --crowdsec-rounds=N (how
# many rounds of each topology run CrowdSec too: 0 for none, default 1 for steady) and --log-days (days of
# the sample in the log: 50 for mainjob, 500 for steady); for listener-outside --orders (default 20000), --batch=N (the
# service's listener takes List<Order> batches of up to N; 0, the default: one order a call) and --jvm-flags='...'
# (both JVMs', default none).
# BENCH_JAVA_OPTS adds flags to the harness JVM (e.g.
# -XX:StartFlightRecording=filename=target/bench/bench.jfr,settings=profile).
#
# The harness starts its own nats-server (PATH, /usr/sbin, ... or Docker, as the tests do) on a free 127.0.0.1 port
# with a JetStream store in a temp dir, and deletes it at the end; it never uses a server on 4222. Benchmark classes
# are not tests: ./mvnw verify does not run them. The Maven profile "bench" adds JMH for the micro scenario.
set -euo pipefail
cd "$(dirname "$0")/.."

# mainjob runs fail2ban-regex side by side with the job: Debian's fail2ban when it is missing.
if { [[ " $* " != *"--scenarios="* ]] || [[ " $* " == *mainjob* ]] || [[ " $* " == *steady* ]]; } && ! command -v fail2ban-regex >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fail2ban >/dev/null \
      || echo "bench: could not install fail2ban; the mainjob scenario will be pending" >&2
  else
    echo "bench: fail2ban-regex is missing and apt-get is not here; the mainjob scenario will be pending" >&2
  fi
fi

# mainjob runs CrowdSec in replay mode too: Debian's crowdsec when it is missing, offline. Its post-install script
# registers with CrowdSec's Central API unless online_api_credentials.yaml exists with a comment in it
# (README.Debian); the benchmark never talks to it (-no-capi), so the opt-out is written first.
if { [[ " $* " != *"--scenarios="* ]] || [[ " $* " == *mainjob* ]] || [[ " $* " == *steady* ]]; } && ! command -v crowdsec >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    mkdir -p /etc/crowdsec
    [ -s /etc/crowdsec/online_api_credentials.yaml ] \
      || echo '# no thanks: offline benchmark host (scripts/bench.sh)' >/etc/crowdsec/online_api_credentials.yaml
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq crowdsec >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq crowdsec >/dev/null; } \
      || echo "bench: could not install crowdsec; the mainjob scenario runs without it" >&2
  else
    echo "bench: crowdsec is missing and apt-get is not here; the mainjob scenario runs without it" >&2
  fi
fi

# steady's figures are held to nats-server 2.12.15 (the release Stellar pins): built into the cache by
# scripts/install-nats-server.sh when VARPULIS_NATS_SERVER does not name a binary, and named for the harness and the
# demo it starts.
if { [[ " $* " != *"--scenarios="* ]] || [[ " $* " == *steady* ]]; } && [ -z "${VARPULIS_NATS_SERVER:-}" ]; then
  VARPULIS_NATS_SERVER="$(scripts/install-nats-server.sh 2.12.15 | awk '{print $3}')"
  export VARPULIS_NATS_SERVER
  echo "bench: nats-server $VARPULIS_NATS_SERVER" >&2
fi

# The node jar (memory, start-up, failover and mainjob scenarios) and the test classes, JMH included.
if ! ./mvnw -q -B -Pbench -DskipTests package >target-bench-package.log 2>&1; then
  echo "bench: './mvnw -Pbench package' failed (see target-bench-package.log); the node scenarios will be pending" >&2
  ./mvnw -q -B -Pbench test-compile
else
  rm -f target-bench-package.log
fi
./mvnw -q -B -Pbench dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/bench-classpath.txt

# listener-outside (issue 42): the library just packaged, installed into a Maven repository of the harness's own
# (target/bench/m2; ~/.m2's io.varpulis artifacts are neither read nor written), and the service and the plain jnats
# consumer of src/test/resources/bench/listener-outside built against it as a user's project is, in
# target/bench/listener-outside. Everything else they need comes from ~/.m2 (releases only), else Maven Central.
if [[ " $* " != *"--scenarios="* ]] || [[ " $* " == *listener-outside* ]]; then
  library="$(ls target/lib/varpulis-cluster-*.jar | head -1)"   # the library's plain jar (pom.xml: default-jar)
  version="${library#target/lib/varpulis-cluster-}"
  version="${version%.jar}"
  jnats="$(sed -n 's:.*<jnats.version>\(.*\)</jnats.version>.*:\1:p' pom.xml)"
  rm -rf target/bench/listener-outside
  mkdir -p target/bench
  cp -r src/test/resources/bench/listener-outside target/bench/
  sed -i "s|@localRepositoryUrl@|file://$HOME/.m2/repository|" target/bench/listener-outside/settings.xml
  ./mvnw -q -B install:install-file -Dfile="$library" -DpomFile=pom.xml -DlocalRepositoryPath=target/bench/m2
  ./mvnw -q -B -f target/bench/listener-outside/pom.xml -s target/bench/listener-outside/settings.xml \
    -Dmaven.repo.local="$PWD/target/bench/m2" -Dvarpulis.version="$version" -Djnats.version="$jnats" package
fi

exec java ${BENCH_JAVA_OPTS:-} -cp "target/test-classes:target/classes:$(cat target/bench-classpath.txt)" \
  io.varpulis.bench.BenchMain "$@"
