#!/usr/bin/env bash
# Overload: goodput at twice the capacity with admission control off and on, the admitted
# requests' p99 against the p99 at half the capacity, the cost of a refusal measured at the root,
# recovery after the load drops, and a burst at ten times the capacity.
#
# Run it under the shared CPU lock, with a capacity measured as docs/benchmarks/tail-suite.md says:
#   flock /work/cpu.lock benchmarks/overload.sh --capacity 590 --port 18400
# Results: $OUT (default results/overload-<time>): one loadgen folder per run, the root's
# /metrics/latency after each overload run, and summary.txt. Takes about 8 minutes.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
source "$HERE/benchmarks/lib.sh"

CAPACITY=""
PORT=18400
OUT="$HERE/results/overload-$(date -u +%Y%m%dT%H%M%SZ)"
ALGORITHMS=(vegas off)
CLUSTER_ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --capacity) CAPACITY="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --admission) IFS=, read -r -a ALGORITHMS <<<"$2"; shift 2 ;;
    --cluster-arg=*) CLUSTER_ARGS+=("${1#--cluster-arg=}"); shift ;;
    *) die "unknown option '$1' (expected: --capacity N, --port P, --out DIR, --admission a,b, --cluster-arg=FLAG)" ;;
  esac
done
require_capacity "$CAPACITY"
require_port_free "$PORT"
bench_init
URL="http://127.0.0.1:$PORT"
SUMMARY="$OUT/summary.txt"
{
  echo "overload benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(machine_line)"
  echo "capacity $CAPACITY req/s (given); 2x = $((2 * CAPACITY)) req/s for 60 s; 10x = $((10 * CAPACITY)) req/s for 10 s"
} >"$SUMMARY"

run() { # label rate duration warmup
  loadgen_run "$OUT/logs/$1.log" --target "$URL" --rate "$2" --duration "$3" --warmup "$4" --label "$1" \
    --results "$OUT/runs" --run-dir "$RUN_DIR"
}

row() { # label folder: the measured phase of the run's summary.json, one line
  python3 - "$1" "$2/summary.json" >>"$SUMMARY" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
phase = [p for p in json.load(open(path))["phases"] if "warm" not in p["name"]][-1]
lat = phase["latency_ms"]["answered"] or {}
root = (phase.get("root") or {}).get("latency_ms") or {}
refused = (phase.get("root") or {}).get("refused_latency_ms") or {}
# At the generator, from the intended start (absent from summaries written before refusals were split).
generator_refused = phase["latency_ms"].get("refused") or {}
fmt = lambda block, key: "-" if not block or block.get(key) is None else f"{block[key]:.1f}"
print(f"{label:24} target/s {phase['target_rate']:7.0f}  achieved/s {phase['achieved_rate']:7.1f}  goodput/s {phase['goodput_per_s']:7.1f}"
      f"  complete {phase['complete']:6}  tainted {phase['tainted']:6}  errors {phase['errors']:6}  dropped {phase['dropped']:5}"
      f"  p50 {fmt(lat, 'p50')}  p99 {fmt(lat, 'p99')} ms  root ok p99 {fmt(root.get('ok'), 'p99')} ms"
      f"  refusal p99 {fmt(generator_refused, 'p99')} ms (n {generator_refused.get('count', 0)})"
      f"  root refusal p99 {fmt(refused, 'p99')} ms (n {refused.get('count', 0)})  errors by reason {phase.get('error_reasons')}")
PY
}

mkdir -p "$OUT/logs"
for algorithm in "${ALGORITHMS[@]}"; do
  cluster_start "$algorithm" "$PORT" --admission "$algorithm" ${CLUSTER_ARGS[@]+"${CLUSTER_ARGS[@]}"}
  # 30 s at the capacity, unmeasured, so the JIT has compiled the request path before the reference.
  folder=$(run "warm-$algorithm" "$CAPACITY" 30s 1s) || true
  folder=$(run "half-$algorithm" $((CAPACITY / 2)) 30s 5s) && row "50% $algorithm" "$folder"
  folder=$(run "2x-$algorithm" $((2 * CAPACITY)) 60s 5s) && row "2x $algorithm" "$folder"
  curl -s "$URL/metrics/latency" >"$OUT/root-latency-2x-$algorithm.json"
  grep -E '^hedgerow_admission|^hedgerow_request_errors_total' <(curl -s "$URL/metrics") >"$OUT/admission-2x-$algorithm.txt" || true
  folder=$(run "after-$algorithm" $((CAPACITY / 2)) 10s 5s) && row "50% after 2x $algorithm" "$folder"
  if [[ "$algorithm" != off ]]; then
    folder=$(run "10x-$algorithm" $((10 * CAPACITY)) 10s 1s) && row "10x $algorithm" "$folder"
    folder=$(run "after10x-$algorithm" $((CAPACITY / 2)) 10s 5s) && row "50% after 10x $algorithm" "$folder"
    curl -s "$URL/metrics/latency" >"$OUT/root-latency-10x-$algorithm.json"
  fi
  if grep -q OutOfMemoryError "$CLUSTER_LOG" "$RUN_DIR"/*.log 2>/dev/null; then
    problem "OutOfMemoryError in the $algorithm cluster's logs"
  fi
  cluster_stop
done
cat "$SUMMARY"
[[ -s "$PROBLEMS" ]] && { echo "problems:"; cat "$PROBLEMS"; }
echo "Results: $OUT"
