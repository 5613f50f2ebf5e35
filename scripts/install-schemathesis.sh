#!/usr/bin/env bash
# Installs schemathesis, the OpenAPI-driven fuzzer OpenApiFuzzTest runs against a live node (SPEC section 15), from
# PyPI into a virtual environment of its own:
#
#   scripts/install-schemathesis.sh      prints the path of the schemathesis executable
#
# Everything goes to ${VARPULIS_SCHEMATHESIS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/schemathesis}/ (a venv),
# where OpenApiFuzzTest looks; a second run with the same version does nothing.
set -euo pipefail

# Pinned: the check names (not_a_server_error, status_code_conformance, ...) and the command line (st run --checks,
# --max-examples, --phases) are those of the 4.x series.
SCHEMATHESIS=4.32.5

cache="${VARPULIS_SCHEMATHESIS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/schemathesis}"
stamp="schemathesis $SCHEMATHESIS"
say() { echo "install-schemathesis: $*" >&2; }

if [ "$(cat "$cache/VERSIONS" 2>/dev/null)" != "$stamp" ] || [ ! -x "$cache/bin/schemathesis" ]; then
  python=$(command -v python3 || true)
  [ -n "$python" ] || { say "needs python3 (3.10 or later) with venv (apt-get install -y python3-venv)"; exit 1; }
  rm -rf "$cache"
  say "installing schemathesis $SCHEMATHESIS into $cache"
  "$python" -m venv "$cache"
  "$cache/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS" >&2
  echo "$stamp" >"$cache/VERSIONS"
fi
echo "$cache/bin/schemathesis"
