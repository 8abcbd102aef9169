#!/usr/bin/env bash
# Builds the static judge viewer (Trunk.toml) into target/viewer-static/: index.html plus hashed,
# cacheable .js, .wasm and .css files that any static host serves. Run by scripts/build-site.sh
# after its own wasm build, whose compiled `frontend` (same features, profile wasm-release) cargo
# reuses here.
set -euo pipefail
cd "$(dirname "$0")/.."
# trunk and wasm-bindgen from `cargo install`; npm binaryen's wasm-opt (Trunk.toml: offline, so
# Trunk only uses tools it finds on PATH at the pinned versions).
export PATH="$PWD/end2end/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! command -v trunk >/dev/null; then
  echo "trunk is not installed: run scripts/setup.sh" >&2
  exit 1
fi
out=target/viewer-static
trunk build --release
files=$(find "$out" -type f | wc -l)
kib=$(du -sk --apparent-size "$out" | cut -f1)
wasm=$(find "$out" -name '*.wasm')
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "static judge viewer built in $out: $files files, $kib KiB ($(basename "$wasm") $(($(stat -c %s "$wasm") / 1024)) KiB raw, $((gz / 1024)) KiB gzip)"
