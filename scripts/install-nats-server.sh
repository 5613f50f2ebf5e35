#!/usr/bin/env bash
# Installs the nats-server versions the tests run against and prints where each one is.
#
#   scripts/install-nats-server.sh [LINE...]      LINE: 2.9 (Debian's package), 2.12, 2.15, latest, or an exact
#                                                 version such as 2.12.15; default: 2.12
#
# One line per request on stdout: "<line> <version> <path>", e.g. "2.12 v2.12.15 /root/.cache/varpulis/...".
# Run the suite against one of them with VARPULIS_NATS_SERVER=<path> ./mvnw -B -ntp verify.
#
# 2.9 is Debian's nats-server package (apt-get install nats-server, /usr/sbin/nats-server). Every other line is
# built from source with `go install github.com/nats-io/nats-server/v2@vLINE` (a version prefix selects the newest
# release of that line; about a minute on 2 cores) into ${VARPULIS_NATS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/
# nats-server}/<version>/, and reused from there on the next run. Without network the newest cached build of the line is used.
set -euo pipefail

cache="${VARPULIS_NATS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/nats-server}"
module="github.com/nats-io/nats-server/v2"

say() { echo "install-nats-server: $*" >&2; }

debian_2_9() {
  local bin=/usr/sbin/nats-server
  if [ ! -x "$bin" ] || ! "$bin" --version 2>/dev/null | grep -q 'v2\.9\.'; then
    if ! command -v apt-get >/dev/null 2>&1; then
      say "2.9 is Debian's package and this machine has no apt-get; trying the Go build of v2.9"
      from_source 2.9
      return
    fi
    say "installing Debian's nats-server package"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nats-server >&2
  fi
  echo "2.9 $("$bin" --version | awk '{print $2}') $bin"
}

# The newest cached build of a line (offline fallback).
cached() {
  local line="$1"
  find "$cache" -maxdepth 2 -path "*/v${line}*/nats-server" -type f 2>/dev/null | sort -V | tail -n 1
}

from_source() {
  local line="$1" query version dir
  if ! command -v go >/dev/null 2>&1; then
    say "no Go toolchain to build nats-server $line: install Go (https://go.dev/dl) or a nats-server binary"
    exit 1
  fi
  case "$line" in
    latest) query=latest ;;
    *) query="v${line#v}" ;;
  esac
  if version=$(go list -m -f '{{.Version}}' "$module@$query" 2>/dev/null) && [ -n "$version" ]; then
    dir="$cache/$version"
    if [ ! -x "$dir/nats-server" ]; then
      say "building nats-server $version from source (go install $module@$version)"
      mkdir -p "$dir"
      GOBIN="$dir" GOFLAGS=-mod=mod go install "$module@$version" >&2
    fi
  else
    local found
    found=$(cached "${line#v}")
    if [ "$line" = latest ]; then
      found=$(find "$cache" -maxdepth 2 -name nats-server -type f 2>/dev/null | sort -V | tail -n 1)
    fi
    if [ -z "$found" ]; then
      say "cannot resolve $module@$query (no network?) and no cached build of it in $cache"
      exit 1
    fi
    say "cannot reach the Go module proxy; using the cached $found"
    dir=$(dirname "$found")
    version=$(basename "$dir")
  fi
  echo "$line $version $dir/nats-server"
}

[ $# -gt 0 ] || set -- 2.12
for line in "$@"; do
  case "$line" in
    2.9) debian_2_9 ;;
    *) from_source "$line" ;;
  esac
done
