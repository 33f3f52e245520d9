#!/usr/bin/env bash
# Hostile clients: 1,000 idle connections and 100 clients that send searches and never read their
# answers, next to ordinary load at half the capacity. The ordinary clients' p99 with the hostile
# ones must stay within 2x of their p99 without them (issue 14); the idle connections must be
# closed by the idle timeout or refused at the cap, the stuck ones closed by the write timeout.
#
#   flock /work/cpu.lock benchmarks/hostile-clients.sh --capacity 590 --port 18410
# Results: $OUT (default results/hostile-<time>): the two loadgen runs, what the hostile clients
# saw (hostile.json) and summary.txt. Takes about 5 minutes. Defaults everywhere (idle timeout 60 s,
# write timeout 30 s, connection cap 10,000).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
source "$HERE/benchmarks/lib.sh"

CAPACITY=""
PORT=18410
OUT="$HERE/results/hostile-$(date -u +%Y%m%dT%H%M%SZ)"
IDLE=1000
STUCK=100
while [[ $# -gt 0 ]]; do
  case "$1" in
    --capacity) CAPACITY="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --idle) IDLE="$2"; shift 2 ;;
    --stuck) STUCK="$2"; shift 2 ;;
    *) die "unknown option '$1' (expected: --capacity N, --port P, --out DIR, --idle N, --stuck N)" ;;
  esac
done
require_capacity "$CAPACITY"
require_port_free "$PORT"
bench_init
URL="http://127.0.0.1:$PORT"
HALF=$((CAPACITY / 2))
SUMMARY="$OUT/summary.txt"
echo "hostile clients, $(date -u +%Y-%m-%dT%H:%MZ), $(machine_line); $IDLE idle + $STUCK never-reading clients next to $HALF req/s" >"$SUMMARY"

cluster_start hostile "$PORT"
warm_up cluster "$CAPACITY" 60s
run() { # label
  loadgen_run "$OUT/logs/$1.log" --target "$URL" --rate "$HALF" --duration 60s --warmup 5s --label "$1" --results "$OUT/runs"
}
mkdir -p "$OUT/logs"
quiet=$(run alone)
say "alone: $(phase_line "$quiet" 0)"
python3 "$HERE/benchmarks/hostile_clients.py" --port "$PORT" --idle "$IDLE" --stuck "$STUCK" --duration 75 \
  >"$OUT/hostile.json" 2>"$OUT/hostile.err" &
HOSTILE=$!
sleep 5
loud=$(run hostile)
wait "$HOSTILE" || problem "the hostile clients failed: $(cat "$OUT/hostile.err")"
say "with hostile clients: $(phase_line "$loud" 0)"
p99_alone=$(lg_read "$quiet" phases.0.latency_ms.answered.p99)
p99_hostile=$(lg_read "$loud" phases.0.latency_ms.answered.p99)
{
  echo "alone:                $(phase_line "$quiet" 0)"
  echo "with hostile clients: $(phase_line "$loud" 0)"
  python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'p99 ratio {b / a:.2f} (target <= 2)')" \
    "$p99_alone" "$p99_hostile"
  echo "hostile clients saw: $(cat "$OUT/hostile.json")"
  curl -s "$URL/metrics" | grep -E '^hedgerow_http_connections' || true
} >>"$SUMMARY"
phase_problems "$quiet"
phase_problems "$loud"
cluster_stop
cat "$SUMMARY"
[[ -s "$PROBLEMS" ]] && { echo "problems:"; cat "$PROBLEMS"; }
exit 0
