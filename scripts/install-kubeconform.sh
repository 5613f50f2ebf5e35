#!/usr/bin/env bash
# Installs kubeconform and the JSON schemas it validates the Helm chart's manifests against, all from the Go module
# proxy (GitHub, where kubeconform would download schemas from, need not be reachable):
#
#   scripts/install-kubeconform.sh      prints "<kubeconform path> <schema directory>"
#
# - kubeconform, built with `go install github.com/yannh/kubeconform/cmd/kubeconform@KUBECONFORM`;
# - the Kubernetes kinds, from api/openapi-spec/swagger.json of the module k8s.io/kubernetes@KUBERNETES, converted
#   by scripts/kubernetes-json-schemas.py;
# - the CRDs the chart renders objects of: PrometheusRule (and ServiceMonitor) from
#   github.com/prometheus-operator/prometheus-operator@PROMETHEUS_OPERATOR, ScaledObject from
#   github.com/kedacore/keda/v2@KEDA, converted by kubeconform's own scripts/openapi2jsonschema.py.
# Everything goes to ${VARPULIS_KUBECONFORM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/kubeconform}/ (bin/ and
# schemas/), where KubeconformTest looks; a second run with the same versions does nothing.
set -euo pipefail

KUBECONFORM=v0.8.0
KUBERNETES=v1.34.0
PROMETHEUS_OPERATOR=v0.85.0
KEDA=v2.21.0

cd "$(dirname "$0")/.."
cache="${VARPULIS_KUBECONFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/kubeconform}"
stamp="kubeconform $KUBECONFORM kubernetes $KUBERNETES prometheus-operator $PROMETHEUS_OPERATOR keda $KEDA"
say() { echo "install-kubeconform: $*" >&2; }

if [ "$(cat "$cache/VERSIONS" 2>/dev/null)" != "$stamp" ]; then
  command -v go >/dev/null || { say "needs Go (https://go.dev/dl/) to fetch modules from the Go module proxy"; exit 1; }
  command -v python3 >/dev/null || { say "needs python3 with PyYAML (apt-get install -y python3-yaml)"; exit 1; }
  rm -rf "$cache"
  mkdir -p "$cache/bin" "$cache/schemas"
  say "building kubeconform $KUBECONFORM"
  GOBIN="$cache/bin" GOFLAGS=-mod=mod go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM"
  dir() { GOFLAGS=-mod=mod go mod download -json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'; }
  kubernetes=$(dir "k8s.io/kubernetes@$KUBERNETES")
  operator=$(dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR")
  keda=$(dir "github.com/kedacore/keda/v2@$KEDA")
  kubeconform_source=$(dir "github.com/yannh/kubeconform@$KUBECONFORM")
  python3 scripts/kubernetes-json-schemas.py "$kubernetes/api/openapi-spec/swagger.json" "$cache/schemas"
  (cd "$cache/schemas" && FILENAME_FORMAT='{kind}-{group}-{version}' python3 "$kubeconform_source/scripts/openapi2jsonschema.py" \
    "$operator/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml" \
    "$operator/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" \
    "$keda/config/crd/bases/keda.sh_scaledobjects.yaml" >&2)
  echo "$stamp" >"$cache/VERSIONS"
fi
echo "$cache/bin/kubeconform $cache/schemas"
