#!/usr/bin/env bash
# Fan-out figures for `make bench`: a release server on a scratch SQLite file, watched
# by growing crowds through `consilium load` (exact logs, connect times, live latency, RSS), a
# fresh server for each crowd.
# Usage: scripts/bench-load.sh [VIEWERS:DEBATES ...]   (default: 1000:1 5000:1 1000:100 2000:500)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CONSILIUM_BIN:-target/release/consilium}
[ -x "$bin" ] || { echo "build it first: cargo build --release -p server" >&2; exit 1; }
scratch=$(mktemp -d)
port=${LOAD_PORT:-3497}
server=
stop() { [ -z "$server" ] || { kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; }; server=; }
trap 'stop; rm -rf "$scratch"' EXIT
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(1000:1 5000:1 1000:100 2000:500)
# A server of its own for each run: its memory figures are that run's alone.
for run in "${runs[@]}"; do
  rm -f "$scratch"/load.db*
  "$bin" serve --addr "127.0.0.1:$port" --database-url "sqlite:$scratch/load.db" --pace-ms 200 \
    --max-streams-per-client 100000 --rate-limit 100000 --rate-burst 100000 \
    --max-debates 1000 --max-debates-per-client 1000 >"$scratch/server.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$scratch/server.log" && break
    kill -0 $server 2>/dev/null || { cat "$scratch/server.log" >&2; exit 1; }
    sleep 0.1
  done
  "$bin" load --addr "127.0.0.1:$port" --viewers "${run%%:*}" --debates "${run##*:}"
  stop
done
