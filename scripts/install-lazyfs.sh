#!/usr/bin/env bash
# Builds LazyFS (https://github.com/dsrhaslab/lazyfs, the FUSE file system Jepsen uses to lose what was not fsynced)
# from its source for the fault suite's power-loss scenario, and prints where its binary is.
#
#   scripts/install-lazyfs.sh [VERSION]      default: 0.3.0 (a tag or commit of the LazyFS repository)
#
# One line on stdout: "lazyfs <version> <path>". Built with Debian's cmake, g++ and libfuse3-dev (installed when
# missing; fuse3 too, for fusermount3) into ${VARPULIS_LAZYFS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/lazyfs}/
# <version>/ and reused from there; about 2 minutes on 2 cores. LazyFS's own build downloads two libraries with
# CMake's FetchContent (toml11 v3.7.1, spdlog v1.10.0); they are taken from git here like LazyFS itself, so that a
# machine that reaches git sources only (or a local copy of them) can build it. Each source is a git URL or a local
# git directory: LAZYFS_GIT (default https://github.com/dsrhaslab/lazyfs.git), LAZYFS_TOML11_GIT
# (https://github.com/ToruNiina/toml11.git), LAZYFS_SPDLOG_GIT (https://github.com/gabime/spdlog.git).
# Nothing of LazyFS is kept in this repository.
set -euo pipefail

version="${1:-0.3.0}"
cache="${VARPULIS_LAZYFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/lazyfs}"
dir="$cache/$version"
binary="$dir/lazyfs/lazyfs/build/lazyfs"

say() { echo "install-lazyfs: $*" >&2; }

if [ -x "$binary" ]; then
  echo "lazyfs $version $binary"
  exit 0
fi

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v git >/dev/null || missing+=(git)
command -v fusermount3 >/dev/null || missing+=(fuse3)
[ -e /usr/include/fuse3/fuse.h ] || missing+=(libfuse3-dev)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} from Debian's packages"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2; then
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
  fi
fi

# Extracts <revision> of a git source (URL or local git directory) into <into>, only <paths> when given (the
# repositories hold large test files a shallow copy may lack).
extract() {
  local source="$1" revision="$2" into="$3" gitdir
  shift 3
  if [ -d "$source" ]; then
    gitdir="$source"
    [ -d "$source/.git" ] && gitdir="$source/.git"
  else
    gitdir="$cache/src/$(basename "$source" .git).git"
    if [ ! -d "$gitdir" ]; then
      say "cloning $source"
      git clone --quiet --bare "$source" "$gitdir" >&2
    fi
  fi
  mkdir -p "$into"
  git --git-dir="$gitdir" archive "$revision" -- "$@" | tar -x -C "$into"
}

rm -rf "$dir"
mkdir -p "$dir"
say "building LazyFS $version from source into $dir"
extract "${LAZYFS_GIT:-https://github.com/dsrhaslab/lazyfs.git}" "$version" "$dir/lazyfs" lazyfs libs LICENSE
extract "${LAZYFS_TOML11_GIT:-https://github.com/ToruNiina/toml11.git}" v3.7.1 "$dir/toml11" CMakeLists.txt cmake \
  toml toml.hpp LICENSE
extract "${LAZYFS_SPDLOG_GIT:-https://github.com/gabime/spdlog.git}" v1.10.0 "$dir/spdlog" CMakeLists.txt cmake \
  include src LICENSE

# libpcache (LazyFS's page cache), with its two libraries from the sources above instead of FetchContent's download.
cmake -S "$dir/lazyfs/libs/libpcache" -B "$dir/lazyfs/libs/libpcache/build" -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_TOML="$dir/toml11" -DFETCHCONTENT_SOURCE_DIR_SPDLOG="$dir/spdlog" >&2
cmake --build "$dir/lazyfs/libs/libpcache/build" -j "$(nproc)" >&2
# LazyFS finds libpcache in the tree above (its CMakeLists' link_directories, kept as its run path) and spdlog's
# headers where FetchContent would have put them.
cmake -S "$dir/lazyfs/lazyfs" -B "$dir/lazyfs/lazyfs/build" -DLAZYFS_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-I$dir/spdlog/include" >&2
cmake --build "$dir/lazyfs/lazyfs/build" -j "$(nproc)" >&2

if [ ! -x "$binary" ]; then
  say "the build ended without $binary"
  exit 1
fi
echo "lazyfs $version $binary"
