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
rm -rf "$site/pkg" && mv "$site/pkg.tmp" "$site/pkg"
cp -r public/. "$site/"
raw=$(stat -c %s "$site/pkg/consilium_bg.wasm")
gz=$(gzip -9 -c "$site/pkg/consilium_bg.wasm" | wc -c)
echo "site built in $site: consilium_bg.wasm $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzip"
# The static judge viewer (Trunk.toml) into target/viewer-static/, reusing the wasm compiled above.
scripts/build-viewer-static.sh
