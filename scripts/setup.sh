#!/usr/bin/env bash
# Installs what Consilium needs, skipping whatever is already right. Each step prints one line: what
# it does and about how long it takes on 2 cores.
# Usage: scripts/setup.sh [run|test]
#   run   what serving needs (`make run`): the wasm target, npm's wasm-opt
#   test  and what the tests need (`make test`): trunk, wasm-bindgen's CLI for it, Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools that `cargo install` puts in place must be found right after installing them.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
for_what=${1:-run}
case "$for_what" in run|test) ;; *) echo "usage: scripts/setup.sh [run|test]" >&2; exit 2 ;; esac

step() { printf '\033[1m==> %s\033[0m\n' "$*"; }
sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
apt_install() {
  for attempt in 1 2 3; do
    # A dpkg archive error has been seen once; a retry fixed it.
    if $sudo_cmd apt-get install -y -qq --no-install-recommends "$@" >/dev/null; then return 0; fi
    [ "$attempt" = 1 ] && { $sudo_cmd apt-get update -qq || true; }
    sleep 3
  done
  echo "could not install $* with apt-get" >&2
  return 1
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the Rust target wasm32-unknown-unknown (~30 s)"
  rustup target add wasm32-unknown-unknown >/dev/null
fi

# npm binaryen's wasm-opt (Debian's wasm-opt 108 produces a bundle that fails to hydrate) and
# Playwright's test runner (no browser download: the tests drive Debian's Chromium).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ ! -d end2end/node_modules/@playwright/test ] \
   || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  step "installing npm packages in end2end/: binaryen's wasm-opt, Playwright (~20 s)"
  (cd end2end && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

[ "$for_what" = test ] || exit 0

# wasm-bindgen-cli at exactly the Cargo.lock version, for trunk (the site's own builds use
# `cargo xtask bindgen`, the same library). Checked against its SHA-256 and built with its own
# lockfile (--locked). That lockfile pins webpki-roots 1.0.11, which has since left the crates.io
# index, so that one entry is moved to 1.0.10 (the version ureq asks for, same API).
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
WB_VERSION=0.2.130
WB_SHA=c37f6904387d19a319525c74af274c73912f3871c35555aa49f3ea64ebb2fc7a
if [ "$have" != "$want" ]; then
  step "installing wasm-bindgen-cli $want for trunk (found '${have:-none}'; ~3 min)"
  if [ "$want" != "$WB_VERSION" ]; then
    echo "Cargo.lock wants wasm-bindgen $want; scripts/setup.sh pins $WB_VERSION: update WB_VERSION and WB_SHA" >&2
    exit 1
  fi
  # Unpacked outside this workspace: inside it, cargo would take the crate for a member.
  tools=$(mktemp -d)
  src=$tools/wasm-bindgen-cli-$want
  curl -fsSL -o "$src.crate" "https://static.crates.io/crates/wasm-bindgen-cli/wasm-bindgen-cli-$want.crate"
  echo "$WB_SHA  $src.crate" | sha256sum -c --quiet
  tar xzf "$src.crate" -C "$tools"
  sed -i '/^name = "webpki-roots"$/{n;s/^version = "1.0.11"$/version = "1.0.10"/;n;n;s/^checksum = "f5f280bbb2b287bc8e7de7e3852945a0ff50d1bbcb5ed42b6c7a568c546df171"$/checksum = "1c1c8e20c8a38fc7d65abfe74eb7280e4aa667e8eec8bc84996d2874810748d9"/}' "$src/Cargo.lock"
  grep -q '^checksum = "1c1c8e20c8a38fc7d65abfe74eb7280e4aa667e8eec8bc84996d2874810748d9"$' "$src/Cargo.lock" \
    || { echo "wasm-bindgen-cli's Cargo.lock changed: review the webpki-roots pin in scripts/setup.sh" >&2; exit 1; }
  CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --quiet --path "$src" --locked --force
  rm -rf "$tools"
fi

# trunk builds the static judge viewer (`make viewer`); 0.22 needs a newer rustc than 1.95.
TRUNK_VERSION=0.21.14
if [ "$(trunk --version 2>/dev/null | awk '{print $2}' || true)" != "$TRUNK_VERSION" ]; then
  step "installing trunk $TRUNK_VERSION, which builds the static judge viewer (~6-10 min)"
  CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --quiet trunk --version "$TRUNK_VERSION" --locked
fi

if ! [ -x /usr/bin/chromium ]; then
  step "installing Debian's Chromium for the browser tests (~1 min)"
  apt_install chromium
fi
