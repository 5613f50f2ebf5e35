#!/usr/bin/env bash
# Installs the real parts the test suite (./mvnw verify) runs besides nats-server (scripts/install-nats-server.sh):
#   - Debian's prometheus package: the server and promtool (PromtoolTest, AlertsEndToEndTest);
#   - Debian's faketime (libfaketime): a coordinator run with its clock ahead (CoordinatorClockAheadTest);
#   - kubeconform and the Kubernetes and CRD schemas, from the Go module proxy (KubeconformTest);
#   - Zipkin's server jar, from Maven Central by its coordinates (ZipkinTraceTest);
#   - schemathesis, from PyPI into a virtual environment (OperatorApiFuzzTest).
# Each is skipped when already there; the tests fail (never skip) when one is missing.
#
#   scripts/install-test-tools.sh
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "install-test-tools: $*" >&2; }

missing=()
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    say "needs ${missing[*]} (Debian packages) and this machine has no apt-get: install them by hand"
    exit 1
  fi
  say "installing Debian's ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
fi
scripts/install-kubeconform.sh >/dev/null
scripts/install-zipkin.sh >/dev/null
scripts/install-schemathesis.sh >/dev/null
say "promtool $(promtool --version 2>&1 | awk 'NR==1{print $3}'), faketime, kubeconform, Zipkin and schemathesis ready"
