#!/usr/bin/env bash
# Builds the Rust Varpulis node (varpulis-cli 0.11.0 from crates.io, feature nats-transport) that
# scripts/interop-rust.sh runs beside ours, and prints the binary's path on stdout.
#
#   scripts/install-varpulis-rust.sh
#
# Cached under ${VARPULIS_RUST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/varpulis/rust}/varpulis-cli-<version>/bin/varpulis:
# a second run prints the cached path at once. The first run takes long (a release build of ~500 crates; about an
# hour on 2 shared cores; CARGO_BUILD_JOBS, default 2, bounds the parallelism and the build runs under nice 19).
#
# The published crate include_str!s 13 files from deploy/security/ and examples/security-demo/ (for its
# `security init` command) that it does not ship: the script places one-line stand-ins at those paths in a build
# copy, so that command scaffolds placeholders; the cluster and engine are unchanged. Needs cargo (https://rustup.rs).
set -euo pipefail

version="${VARPULIS_RUST_VERSION:-0.11.0}"
cache="${VARPULIS_RUST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/varpulis/rust}"
root="$cache/varpulis-cli-$version"
bin="$root/bin/varpulis"

say() { echo "install-varpulis-rust: $*" >&2; }

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if ! command -v cargo >/dev/null 2>&1; then
  say "no cargo to build varpulis-cli $version: install Rust (https://rustup.rs) and run this again"
  exit 1
fi

work="$cache/build-$version"
mkdir -p "$work"

# cargo fetch of a throwaway project brings the crate's source into cargo's registry cache.
fetcher="$work/fetch"
mkdir -p "$fetcher/src"
cat > "$fetcher/Cargo.toml" <<TOML
[package]
name = "varpulis-fetch"
version = "0.0.0"
edition = "2021"

[dependencies]
varpulis-cli = "=$version"
TOML
echo 'fn main() {}' > "$fetcher/src/main.rs"
say "fetching varpulis-cli $version from crates.io"
(cd "$fetcher" && cargo fetch -q >&2)
src=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name "varpulis-cli-$version" | head -n 1)
if [ -z "$src" ]; then
  say "cargo fetch did not leave varpulis-cli-$version in ${CARGO_HOME:-$HOME/.cargo}/registry/src"
  exit 1
fi

# The include_str! paths are ../../../../<file> from src/commands/: the crate sits two levels below the stand-ins.
copy="$work/tree/crates/varpulis-cli"
rm -rf "$copy"
mkdir -p "$copy"
cp -R "$src/." "$copy/"
grep -o 'include_str!("\.\./\.\./\.\./\.\./[^"]*")' "$copy/src/commands/security_init.rs" \
  | sed 's/include_str!("\.\.\/\.\.\/\.\.\/\.\.\/\(.*\)")/\1/' | sort -u | while read -r rel; do
    mkdir -p "$work/tree/$(dirname "$rel")"
    echo "# stand-in: varpulis-cli $version from crates.io does not ship $rel" > "$work/tree/$rel"
  done

say "building varpulis-cli $version with nats-transport into $root (long: a release build on ${CARGO_BUILD_JOBS:-2} jobs)"
CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" CARGO_TARGET_DIR="$work/target" \
  nice -n 19 cargo install -q --locked --path "$copy" --features nats-transport --root "$root" >&2
if [ ! -x "$bin" ]; then
  say "cargo install finished but $bin is missing; the crate's binaries: $(ls "$root/bin" 2>/dev/null)"
  exit 1
fi
echo "$bin"
