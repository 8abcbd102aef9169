#!/usr/bin/env bash
# The real model server for the real-model test tier: scripts/llm.sh start|stop|status
# start: set up (scripts/llm-setup.sh) if needed, serve SmolLM2 on 127.0.0.1:$LLM_PORT, wait until
# healthy and print OPENAI_BASE_URL=…; a healthy server already running is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${LLM_DIR:-target/llm}
PORT=${LLM_PORT:-8091}
EMBED_PORT=${LLM_EMBED_PORT:-8092}
URL="http://127.0.0.1:$PORT"
EMBED_URL="http://127.0.0.1:$EMBED_PORT"
healthy() { curl -fs -m 2 "$URL/health" >/dev/null 2>&1 && curl -fs -m 2 "$EMBED_URL/health" >/dev/null 2>&1; }
case "${1:-}" in
  start)
    if healthy; then echo "OPENAI_BASE_URL=$URL/v1 OPENAI_EMBEDDINGS_BASE_URL=$EMBED_URL/v1"; exit 0; fi
    # A chat-only server from before the embedding model existed is replaced.
    if [ -f "$DEST/server.pid" ]; then kill "$(cat "$DEST/server.pid")" 2>/dev/null || true; sleep 1; fi
    scripts/llm-setup.sh "$DEST"
    PORT=$PORT EMBED_PORT=$EMBED_PORT nohup "$DEST/venv/bin/python" scripts/llm-serve.py \
      "$DEST/models/SmolLM2-135M-Instruct.Q4_1.gguf" "$DEST/models/all-MiniLM-L6-v2-f16.gguf" \
      > "$DEST/server.log" 2>&1 &
    echo $! > "$DEST/server.pid"
    for _ in $(seq 1 240); do
      if healthy; then echo "OPENAI_BASE_URL=$URL/v1 OPENAI_EMBEDDINGS_BASE_URL=$EMBED_URL/v1"; exit 0; fi
      if ! kill -0 "$(cat "$DEST/server.pid")" 2>/dev/null; then break; fi
      sleep 0.5
    done
    echo "the model server did not become healthy on $URL; its log:" >&2
    tail -n 30 "$DEST/server.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$DEST/server.pid" ]; then kill "$(cat "$DEST/server.pid")" 2>/dev/null || true; rm -f "$DEST/server.pid"; fi
    ;;
  status)
    if healthy; then echo "running: $URL/v1"; else echo "not running"; exit 1; fi
    ;;
  *) echo "usage: scripts/llm.sh start|stop|status" >&2; exit 2 ;;
esac
