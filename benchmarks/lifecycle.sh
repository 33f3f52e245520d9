#!/bin/bash
# Rolling restart and root stop under load (issue 14), as measured in docs/benchmarks/lifecycle.md.
#
# Starts ./hedgerow local on an index, loads it at 300 req/s with docs/benchmarks/lifecycle/rolling-restart-10s.json
# (90 s unrecorded warm-up, 20 s baseline, 30 phases of 10 s from 2 s before the restart, 20 s "recovered"), runs
# './hedgerow local restart --rolling' from outside 2 s into the rolling-restart phase, then loads it
# with root-stop.json and sends the cluster's process (the root) SIGTERM 10 s in.
#
# Run it under the shared CPU lock:
#   flock /work/cpu.lock benchmarks/lifecycle.sh --data /tmp/lc-data --port 8360 [--rate 150] [--local-arg --admission=off]
# --rate overrides every phase's 300 req/s; --scenario another rolling-restart scenario (its warm-up and baseline
# must last 110 s, as the restart starts 112 s in).
# Prints the restart's own report and both loadgen tables; results go to --results (default results/lifecycle).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DATA=data; PORT=8360; RESULTS="$HERE/results/lifecycle"; LOCAL_ARGS=(); RATE_ARGS=()
SCENARIO=docs/benchmarks/lifecycle/rolling-restart-10s.json
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) DATA="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --results) RESULTS="$2"; shift 2 ;;
    --local-arg) LOCAL_ARGS+=("$2"); shift 2 ;;
    --rate) RATE_ARGS=(--rate "$2"); shift 2 ;;
    --scenario) SCENARIO="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
RUN="$(mktemp -d "${TMPDIR:-/tmp}/lifecycle-run.XXXXXX")"
LOGS="$RESULTS/logs"; mkdir -p "$LOGS"
cd "$HERE"
./hedgerow local --data "$DATA" --run-dir "$RUN" --port "$PORT" "${LOCAL_ARGS[@]}" > "$LOGS/local.log" 2>&1 &
LOCAL=$!
trap 'kill $LOCAL 2>/dev/null || true' EXIT
for i in $(seq 1 180); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/ready" || true)" == 200 ]] && break
  sleep 1
done
echo "ready after ${i} s"
# The loadgen's warm-up (90 s) and baseline (20 s) come first; the restart starts 2 s into the next phase.
( sleep 112; ./hedgerow local restart --rolling --run-dir "$RUN" ) > "$LOGS/restart.log" 2>&1 &
RESTART=$!
./hedgerow loadgen --target "http://127.0.0.1:$PORT" --run-dir "$RUN" --results "$RESULTS" \
    --scenario "$SCENARIO" "${RATE_ARGS[@]}" > "$LOGS/loadgen-rolling.log" 2>&1
wait $RESTART || true
cat "$LOGS/restart.log"
grep -A30 '^phase ' "$LOGS/loadgen-rolling.log" | grep -v '^Latency in ms'; grep 'errors by reason' "$LOGS/loadgen-rolling.log" || true
( sleep 11; kill -TERM $LOCAL ) &
./hedgerow loadgen --target "http://127.0.0.1:$PORT" --run-dir "$RUN" --results "$RESULTS" \
    --scenario docs/benchmarks/lifecycle/root-stop.json "${RATE_ARGS[@]}" > "$LOGS/loadgen-stop.log" 2>&1 || true
wait $LOCAL || true
grep -A2 '^phase ' "$LOGS/loadgen-stop.log"; grep 'errors by reason' "$LOGS/loadgen-stop.log" || true
grep -h 'leaf stopped (' "$RUN"/leaf-*.log | cut -d';' -f1
grep -h 'root stopped' "$LOGS/local.log" || true
