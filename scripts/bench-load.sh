#!/usr/bin/env bash
# Fan-out figures for `make bench`: a `dist` server on a scratch SQLite file, watched
# by growing crowds through `consilium-bench load` (exact logs, connect times, live latency, RSS), a
# fresh server for each crowd.
# Then LM-1/LM-3 against a fake OpenAI-compatible model over real HTTP (`consilium-bench load --model`):
# an S4 debate whose every call takes 1 s, asked one at a time and at once (3 agents, and 5), and its replies
# streamed a piece every 50 ms to 100 and to 1,000 viewers.
# Usage: scripts/bench-load.sh [VIEWERS:DEBATES ...]   (default: 1000:1 5000:1 1000:100 2000:500)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CONSILIUM_BIN:-target/dist/consilium}
bench=${CONSILIUM_BENCH_BIN:-${bin}-bench}
[ -x "$bin" ] && [ -x "$bench" ] || { echo "build them first: make dist ($bin, $bench)" >&2; exit 1; }
scratch=$(mktemp -d)
port=${LOAD_PORT:-3497}
server=
stop() { [ -z "$server" ] || { kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; }; server=; }
trap 'stop; rm -rf "$scratch"' EXIT
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(1000:1 5000:1 1000:100 2000:500)
model_port=$((port + 1))
# A server of its own for each run: its memory figures are that run's alone.
serve() {
  rm -f "$scratch"/load.db*
  OPENAI_BASE_URL="http://127.0.0.1:$model_port/v1" OPENAI_MODEL=fake-1s \
  "$bin" serve --addr "127.0.0.1:$port" --database-url "sqlite:$scratch/load.db" \
    --max-streams-per-client 100000 --max-connections 100000 --max-connections-per-address 100000 \
    --rate-limit 100000 --rate-burst 100000 \
    --max-debates 1000 --max-debates-per-client 1000 --max-daily-debates-per-client 0 "$@" >"$scratch/server.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$scratch/server.log" && break
    kill -0 $server 2>/dev/null || { cat "$scratch/server.log" >&2; exit 1; }
    sleep 0.1
  done
}
for run in "${runs[@]}"; do
  serve --pace-ms 200
  "$bench" load --addr "127.0.0.1:$port" --viewers "${run%%:*}" --debates "${run##*:}"
  stop
done
[ $# -gt 0 ] && exit 0
# agents:limit — 5 agents make 20 challenges in round 2, all in flight with a limit of 20.
for run in 3:1 3:6 5:20; do
  agents=${run%%:*} parallel=${run##*:}
  echo "== S4, $agents agents, against a model answering in 1 s, --max-parallel-calls $parallel =="
  serve --pace-ms 0 --max-parallel-calls "$parallel"
  "$bench" load --addr "127.0.0.1:$port" --model "127.0.0.1:$model_port" --piece-ms 0 --viewers 1 --debates 1 \
    --agents "$agents" | grep '^model\|^debate wall'
  stop
done
for viewers in 100 1000; do
  echo "== streamed replies, a piece every 50 ms, $viewers viewers =="
  serve --pace-ms 0 --max-parallel-calls 6
  "$bench" load --addr "127.0.0.1:$port" --model "127.0.0.1:$model_port" --piece-ms 50 \
    --viewers "$viewers" --debates 1 | grep '^model\|^debate wall\|^streamed\|^load:'
  stop
done
