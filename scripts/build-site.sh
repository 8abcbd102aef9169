#!/usr/bin/env bash
# Builds the browser side into target/site: the hydrating wasm bundle (pkg/consilium.js,
# pkg/consilium_bg.wasm), the stylesheet (pkg/consilium.css), the offline audit viewer
# (viewer.html, self-contained) and the public assets.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools that `cargo install` puts in place must be found right after installing them.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
site=target/site
export PATH="$PWD/end2end/node_modules/.bin:$PATH"

cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release
rm -rf "$site/pkg.tmp" && mkdir -p "$site/pkg.tmp"
wasm-bindgen --target web --no-typescript --out-dir "$site/pkg.tmp" --out-name consilium \
  target/wasm32-unknown-unknown/wasm-release/frontend.wasm
# npm binaryen's wasm-opt; Debian's wasm-opt 108 produces a bundle that fails to hydrate.
opt_flags=(-Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
wasm-opt "${opt_flags[@]}" -o "$site/pkg.tmp/consilium_bg.wasm" "$site/pkg.tmp/consilium_bg.wasm"
cp style/main.css "$site/pkg.tmp/consilium.css"
# The offline audit viewer: the same module with classic-script glue, inlined into one HTML file.
wasm-bindgen --target no-modules --no-typescript --out-dir "$site/pkg.tmp/viewer" --out-name viewer \
  target/wasm32-unknown-unknown/wasm-release/frontend.wasm
wasm-opt "${opt_flags[@]}" -o "$site/pkg.tmp/viewer/viewer_bg.wasm" "$site/pkg.tmp/viewer/viewer_bg.wasm"
python3 scripts/bundle-viewer.py "$site/pkg.tmp/viewer/viewer.js" "$site/pkg.tmp/viewer/viewer_bg.wasm" \
  style/main.css "$site/viewer.html"
rm -rf "$site/pkg.tmp/viewer"
# Precompressed beside each file, served as the browser accepts (brotli from scripts/setup.sh).
for f in "$site"/pkg.tmp/consilium.js "$site"/pkg.tmp/consilium_bg.wasm "$site"/pkg.tmp/consilium.css; do
  gzip -9 -n -k -f "$f"
  brotli -q 11 -k -f "$f"
done
rm -rf "$site/pkg" && mv "$site/pkg.tmp" "$site/pkg"
cp -r public/. "$site/"
size() { stat -c %s "$@" | awk '{s += $1} END {print int(s / 1024)}'; }
p="$site/pkg"
echo "site built in $site: consilium_bg.wasm $(size "$p/consilium_bg.wasm") KiB raw," \
  "$(size "$p/consilium_bg.wasm.gz") KiB gzip, $(size "$p/consilium_bg.wasm.br") KiB brotli;" \
  "first page on the wire (js + wasm + css, brotli): $(size "$p"/consilium{.js,_bg.wasm,.css}.br) KiB"
# The static judge viewer (Trunk.toml) into target/viewer-static/, reusing the wasm compiled above.
scripts/build-viewer-static.sh
