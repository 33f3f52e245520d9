#!/usr/bin/env bash
# Cold start: a fresh cluster loaded at half the capacity as soon as its root's /ready answers 200.
# Its p99 over the first 30 s must stay within 3x its warm p99 (issue 14). Then 60 s of unmeasured
# load at the capacity, and the same 30 s at half the capacity again: the warm reference.
#
#   flock /work/cpu.lock benchmarks/cold-start.sh --capacity 590 --port 18420 [--cluster-arg=--flag ...]
# Results: $OUT (default results/cold-start-<time>): both runs, when /ready answered, summary.txt.
# With HEDGEROW_AOT=on (JDK 25) the JVMs start from the build's AOT cache when './hedgerow aot
# train' made one; the summary says how many did.
# Takes about 3 minutes.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
source "$HERE/benchmarks/lib.sh"

CAPACITY=""
PORT=18420
OUT="$HERE/results/cold-start-$(date -u +%Y%m%dT%H%M%SZ)"
CLUSTER_ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --capacity) CAPACITY="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --cluster-arg=*) CLUSTER_ARGS+=("${1#--cluster-arg=}"); shift ;;
    *) die "unknown option '$1' (expected: --capacity N, --port P, --out DIR, --cluster-arg=FLAG)" ;;
  esac
done
require_capacity "$CAPACITY"
require_port_free "$PORT"
bench_init
URL="http://127.0.0.1:$PORT"
HALF=$((CAPACITY / 2))
SUMMARY="$OUT/summary.txt"
echo "cold start, $(date -u +%Y-%m-%dT%H:%MZ), $(machine_line); $HALF req/s from the moment /ready answers" >"$SUMMARY"

mkdir -p "$OUT/logs"
# The generator starts first: it warms its own JVM (10 s against an in-process responder) while the
# cluster starts, waits for /ready and loads the cluster the moment it answers 200, so the first 30 s
# measure a cold cluster and not a cold generator.
loadgen_run "$OUT/logs/cold.log" --target "$URL" --rate "$HALF" --duration 30s --warmup 0s --await-ready \
  --label cold --results "$OUT/runs" >"$OUT/cold.folder" &
COLD_PID=$!
started=$SECONDS
cluster_start cold "$PORT" ${CLUSTER_ARGS[@]+"${CLUSTER_ARGS[@]}"}
until [[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/ready")" == 200 ]]; do
  (( SECONDS - started < 600 )) || die "/ready did not answer 200 within 10 minutes"
  sleep 0.2
done
ready_after=$((SECONDS - started))
say "/ready answered 200 ${ready_after} s after the start"
# Whether the JVMs started from an AOT cache (HEDGEROW_AOT=on and './hedgerow aot train' for this
# build): each maps its cache file, so /proc/PID/maps tells without any JVM logging.
aot_line="$(
  mapped=0 total=0
  for pid in "$CLUSTER_PID" $(cat "$RUN_DIR"/leaf-*.pid 2>/dev/null); do
    total=$((total + 1))
    grep -qs '\.aot$' "/proc/$pid/maps" && mapped=$((mapped + 1))
  done
  echo "HEDGEROW_AOT=${HEDGEROW_AOT:-off}: $mapped of $total cluster JVMs started from an AOT cache"
)"
say "$aot_line"
wait "$COLD_PID" || true
cold="$(cat "$OUT/cold.folder")"
[[ -n "$cold" ]] || die "the cold phase did not run (see $OUT/logs/cold.log)"
warm_up cluster "$CAPACITY" 60s
# Its generator warms its own JVM too (--await-ready: the cluster is ready), or its first second measures that.
warm=$(loadgen_run "$OUT/logs/warm.log" --target "$URL" --rate "$HALF" --duration 30s --warmup 0s --await-ready --label warm --results "$OUT/runs")
p99_cold=$(lg_read "$cold" phases.0.latency_ms.answered.p99)
p99_warm=$(lg_read "$warm" phases.0.latency_ms.answered.p99)
{
  echo "/ready after ${ready_after} s (start of ./hedgerow local to 200); $aot_line"
  echo "first 30 s: $(phase_line "$cold" 0)"
  echo "warm 30 s:  $(phase_line "$warm" 0)"
  python3 -c "import sys; c, w = float(sys.argv[1]), float(sys.argv[2]); print(f'cold/warm p99 {c / w:.2f} (target <= 3)')" \
    "$p99_cold" "$p99_warm"
} >>"$SUMMARY"
phase_problems "$cold"
phase_problems "$warm"
cluster_stop
cat "$SUMMARY"
[[ -s "$PROBLEMS" ]] && { echo "problems:"; cat "$PROBLEMS"; }
exit 0
