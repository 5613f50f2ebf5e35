#!/usr/bin/env bash
# Fetches Zipkin's server (the executable jar io.zipkin:zipkin-server:<version>:exec from Maven Central) for the
# tracing test (ZipkinTraceTest, SPEC section 14) and prints its path.
#
#   scripts/install-zipkin.sh [VERSION]      default: 3.6.1 (needs Java 17, as the build does)
#
# Cached in ${VARPULIS_ZIPKIN_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/zipkin}/zipkin-server-<version>-exec.jar
# and reused; its SHA-1 is checked against Maven Central's. The test finds it there, or at VARPULIS_ZIPKIN_JAR.
set -euo pipefail

version="${1:-3.6.1}"
cache="${VARPULIS_ZIPKIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/zipkin}"
jar="$cache/zipkin-server-$version-exec.jar"
url="https://repo1.maven.org/maven2/io/zipkin/zipkin-server/$version/zipkin-server-$version-exec.jar"

if [ ! -s "$jar" ]; then
  mkdir -p "$cache"
  echo "install-zipkin: downloading $url" >&2
  curl -fsSL --retry 3 -o "$jar.part" "$url"
  expected="$(curl -fsSL --retry 3 "$url.sha1" | awk '{print $1}')"
  actual="$(sha1sum "$jar.part" | awk '{print $1}')"
  if [ "$expected" != "$actual" ]; then
    rm -f "$jar.part"
    echo "install-zipkin: SHA-1 of $url is $actual, Maven Central says $expected; not installed" >&2
    exit 1
  fi
  mv "$jar.part" "$jar"
fi
echo "$jar"
