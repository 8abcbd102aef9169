#!/usr/bin/env bash
# Builds the browser side into target/site.
# Usage: scripts/build-site.sh [pages|all]
#   pages  what every page needs (`make run`): the hydrating wasm bundle split per page
#          (pkg/consilium.H.js, pkg/consilium.H.wasm, the chunk loader, the chunks — H the bundle's
#          hash, in pkg/hash.txt — their manifest, and each page's chunks packed in one file,
#          pkg/pack_PAGE.H.bin), the stylesheet (pkg/consilium.css) and the public assets
#   all    (default) and the offline audit viewer (viewer.html, self-contained) and the live
#          bundles (pkg/live-PROTOCOL.H.js, .wasm: a debate's live page on its own, smaller than
#          the split bundle's first load; without them the server sends the split bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools that `cargo install` puts in place must be found right after installing them.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
site=target/site
export PATH="$PWD/end2end/node_modules/.bin:$PATH"

wasm_out=target/wasm32-unknown-unknown/wasm-release/frontend.wasm
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
# What is sent compressed: -Os without inlining functions that have one caller (-ocimfs=0). That
# inlining makes a module smaller raw but larger on the wire: brotli compresses the repeated shapes
# of small generic functions better than their copies merged into each caller (measured: a live
# page 535 -> 489 KiB brotli against -Oz; -O1, -O3 and -Oz alone measured too).
opt_flags=(-Os -ocimfs=0 "${features[@]}")
# viewer.html is a file a judge keeps and opens from disk, read uncompressed: smallest raw (-Oz).
file_opt_flags=(-Oz "${features[@]}")
what=${1:-all}
case "$what" in pages|all) ;; *) echo "usage: scripts/build-site.sh [pages|all]" >&2; exit 2 ;; esac
# Each step says what it does and about how long it takes; the last line says how long it took.
began=$SECONDS
step() { printf '\033[1m==> %s\033[0m\n' "$*"; }
rm -rf "$site/pkg.tmp" && mkdir -p "$site/pkg.tmp"
# The build's own tasks (xtask/): `cargo xtask`, or — from `make build`, which compiles the xtask
# binary in the server's cargo run (one dependency graph, shared) — that binary, once the cargo
# run whose process id is XTASK_AFTER has ended.
xtask() {
  if [ -n "${XTASK:-}" ]; then
    while [ -n "${XTASK_AFTER:-}" ] && kill -0 "$XTASK_AFTER" 2>/dev/null; do sleep 1; done
    [ -x "$XTASK" ] || { echo "$XTASK was not built: see target/build-server.log" >&2; return 1; }
    "$XTASK" "$@"
  else
    cargo xtask "$@"
  fi
}

# 1. The served site: one module per page. `cargo xtask split` cuts the module at its
#    lazy routes (app/src/ui/mod.rs) into a main module (what every page shares) and chunks
#    fetched when a page is first shown, and writes the manifest from which the server-rendered
#    page preloads the chunks of the page it shows. The home page's shared code stays in the main
#    module (--with-main, vendor/wasm_split_cli_support/PATCH.md): it is one file, not 26 chunks.
#    The link keeps its relocations for the splitter (--emit-relocs, given to the final link only:
#    the dependencies stay compiled once for both builds and clippy).
step "compiling the browser bundle to WebAssembly (~5 min the first time, ~2 min after a change)"
cargo rustc -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release -- -Clink-args=--emit-relocs
xtask split "$wasm_out" "$site/pkg.tmp" consilium --with-main __home_route_view_ >/dev/null
xtask bindgen --target web --keep-lld-exports --no-demangle --out-dir "$site/pkg.tmp" \
  --out-name consilium "$site/pkg.tmp/consilium_split.wasm"
rm "$site/pkg.tmp/consilium_split.wasm"
# npm binaryen's wasm-opt on every module, two at a time; Debian's wasm-opt 108 produces a bundle
# that fails to hydrate.
find "$site/pkg.tmp" -name '*.wasm' -print0 \
  | xargs -0 -P 2 -I{} wasm-opt "${opt_flags[@]}" --strip-debug -o {} {} 2>&1 \
  | { grep -v 'unknown name subsection' || true; }
cp style/main.css "$site/pkg.tmp/consilium.css"

if [ "$what" = all ]; then
step "compiling the offline viewer and the five live bundles (~5 min the first time)"
# 2. The offline viewers load no chunks: the same crate as one module (feature single-module),
#    with the `viewer` entry point. The static judge viewer (`make viewer`, Trunk) reuses this
#    compile.
cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release --features single-module
mkdir -p "$site/pkg.tmp/viewer"
xtask bindgen --target no-modules --out-dir "$site/pkg.tmp/viewer" --out-name viewer "$wasm_out"
wasm-opt "${file_opt_flags[@]}" -o "$site/pkg.tmp/viewer/viewer_bg.wasm" "$site/pkg.tmp/viewer/viewer_bg.wasm"
python3 scripts/bundle-viewer.py "$site/pkg.tmp/viewer/viewer.js" "$site/pkg.tmp/viewer/viewer_bg.wasm" \
  style/main.css "$site/viewer.html"
rm -rf "$site/pkg.tmp/viewer"

# 3. The live bundles, one per protocol: `frontend`'s `live-PROTOCOL` entry point hydrates a
#    debate's live view with that protocol's parts only (app::ui::hydrate_live); the server gives
#    it to that protocol's live pages asked for by address (app::ui::Bundle). Built on the
#    single-module compile above (no split points: each is an export that would keep its page's
#    code), each reaches neither the router, nor the other pages, nor the other protocols.
for protocol in s4 round_robin collapse escalation reconcile; do
  cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release \
    --features "single-module,live-$protocol"
  xtask bindgen --target web --out-dir "$site/pkg.tmp" --out-name "live-$protocol" "$wasm_out"
done
find "$site/pkg.tmp" -name 'live-*_bg.wasm' -print0 \
  | xargs -0 -P 2 -I{} wasm-opt "${opt_flags[@]}" --strip-debug -o {} {} 2>&1 \
  | { grep -v 'unknown name subsection' || true; }
fi
# One content hash in every name of the split bundle, so the server can mark them immutable.
python3 scripts/hash-bundle.py "$site/pkg.tmp"
# Each lazy page's chunks also in one file, the pack the server-rendered page preloads: one
# request, and one compressed stream is smaller than its chunks compressed one by one.
python3 scripts/pack-pages.py "$site/pkg.tmp" --panels-on live,audit
step "hashing, packing and compressing the bundle (~30 s)"
# Precompressed beside each file, served as the browser accepts (brotli from scripts/setup.sh).
for f in "$site"/pkg.tmp/*.js "$site"/pkg.tmp/*.wasm "$site"/pkg.tmp/*.css "$site"/pkg.tmp/*.bin; do
  gzip -9 -n -k -f "$f"
  brotli -q 11 -k -f "$f"
done
rm -rf "$site/pkg" && mv "$site/pkg.tmp" "$site/pkg"
cp -r public/. "$site/"
echo "site built in $site in $((SECONDS - began)) s"
python3 scripts/bundle-sizes.py "$site/pkg"
