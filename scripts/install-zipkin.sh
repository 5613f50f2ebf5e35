#!/usr/bin/env bash
# Fetches Zipkin's server (the executable jar io.zipkin:zipkin-server:<version>:exec, from Maven Central by its
# coordinates, through the project's Maven wrapper) for the tracing test (ZipkinTraceTest, SPEC section 14) and
# prints its path.
#
#   scripts/install-zipkin.sh [VERSION]      default: 3.6.1 (needs Java 17, as the build does)
#
# Cached in ${VARPULIS_ZIPKIN_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/zipkin}/zipkin-server-<version>-exec.jar
# and reused; Maven checks the artifact's checksum as it resolves it. The test finds it there, or at
# VARPULIS_ZIPKIN_JAR.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-3.6.1}"
cache="${VARPULIS_ZIPKIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/zipkin}"
jar="$cache/zipkin-server-$version-exec.jar"

if [ ! -s "$jar" ]; then
  mkdir -p "$cache"
  echo "install-zipkin: resolving io.zipkin:zipkin-server:$version:exec" >&2
  ./mvnw -B -ntp -q dependency:copy -Dartifact="io.zipkin:zipkin-server:$version:jar:exec" \
    -DoutputDirectory="$cache" -Dmdep.overWriteReleases=true -Dmdep.checksumPolicy=fail >&2
  if [ ! -s "$jar" ]; then
    echo "install-zipkin: Maven resolved io.zipkin:zipkin-server:$version:exec but $jar is missing" >&2
    exit 1
  fi
fi
echo "$jar"
