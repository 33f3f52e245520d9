#!/usr/bin/env bash
# Tied requests against their twin delay (docs/benchmarks/request-path.md): for each delay, a fresh
# ./hedgerow local (default settings: leaf workers, replicas, grace) with --tied-delay, a warm-up,
# then the default request with hedge=tied at one rate; reports latency, extra leaf requests, how
# often both copies ran, and how long a twin's cancel took from leaf to leaf (the leaves' own
# histogram, from their logs at shutdown).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELAYS="adaptive,0ms,1ms,2ms,5ms"
RATE=295
PHASE_DURATION=40s
WARMUP=90s
RESULTS="$HERE/results"
PORT=8080

usage() {
  cat <<'USAGE'
Usage: benchmarks/tied-sweep.sh [options]

For each twin delay: starts ./hedgerow local --tied-delay D (default settings otherwise, fault
injection off), warms it up, runs ./hedgerow loadgen --hedge tied (the default request: stored fields,
snippets, the default mix) at --rate for --phase-duration, stops the cluster and reads the leaves'
twin-cancel counters from their logs. Writes <results>/<time>-tied-sweep/tied-sweep.md: per delay,
p50, p99, p99.9, extra leaf requests %, both ran % (tied pairs where both copies executed), and the
twin cancel's leaf-to-leaf delay (p50/p99, microseconds). About 2 minutes per delay.

Options:
  --delays LIST          Twin delays, comma-separated; "adaptive" is the default (no --tied-delay)
                         (default: adaptive,0ms,1ms,2ms,5ms; whole milliseconds).
  --rate N               Open-loop rate, requests/s (default: 295, half the suite's capacity).
  --phase-duration D     Measured phase per delay (default: 40s).
  --warmup D             Unmeasured load on each fresh cluster first (default: 90s: with less, a
                         fresh cluster is still compiling and the generator runs late).
  --port N               The root's HTTP port (default: 8080).
  --results DIR          Where the results folder goes (default: results/).
  -h, --help             This help.
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --delays) require_value "$1" "${2:-}"; DELAYS="$2"; shift 2 ;;
    --rate) require_value "$1" "${2:-}"; RATE="$2"; shift 2 ;;
    --phase-duration) require_value "$1" "${2:-}"; require_duration "$1" "$2"; PHASE_DURATION="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; require_duration "$1" "$2"; WARMUP="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[[ "$RATE" =~ ^[0-9]+$ && "$RATE" -ge 1 ]] || die "--rate: '$RATE' (expected: a whole number of requests/s >= 1)"
require_port_free "$PORT"

OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-tied-sweep"
bench_init
URL="http://127.0.0.1:$PORT"
TABLE="$OUT/tied-sweep.md"
{
  echo "| twin delay | p50 | p99 | p99.9 | max | errors % | extra leaf % | both ran % | twin cancels | cancel delay p50 / p99 (us) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} >"$TABLE"

# The leaves' twin-cancel lines at shutdown, summed over leaves: cancels received, both ran, and the
# delays of the leaf with the most of them (histograms cannot be summed from one line each).
cancel_columns() {
  grep -h 'twin cancel delay' "$RUN_DIR"/*.log 2>/dev/null | awk '
    { for (i = 1; i <= NF; i++) {
        if ($i == "received") received += $(i + 1) + 0
        if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1)
        if ($i == "over") { n = $(i + 1) + 0; if (n > best) { best = n; b50 = p50; b99 = p99 } }
      } }
    END { if (best == 0) print "n/a | n/a"; else printf "%d | %s / %s\n", received, b50, b99 }'
}

IFS=',' read -r -a delay_list <<<"$DELAYS"
for delay in "${delay_list[@]}"; do
  args=()
  [[ "$delay" == adaptive ]] || args+=(--tied-delay "$delay")
  rm -rf "$RUN_DIR"
  cluster_start "tied-$delay" "$PORT" "${args[@]}"
  warm_up "$delay" "$RATE" "$WARMUP" --hedge tied
  folder="$(loadgen_run "$OUT/tied-$delay.log" --target "$URL" --rate "$RATE" --duration "$PHASE_DURATION" \
    --warmup 0s --hedge tied --label "tied-$delay" --results "$OUT/runs")" || { cluster_stop; continue; }
  phase_problems "$folder"
  cluster_stop
  values="$(lg_read "$folder" phases.0.latency_ms.answered.p50 phases.0.latency_ms.answered.p99 \
    phases.0.latency_ms.answered.p99_9 phases.0.latency_ms.answered.max phases.0.error_rate \
    phases.0.root.extra_leaf_requests_pct phases.0.root.tied_both_ran_pct | paste -sd' ')"
  read -r p50 p99 p999 max errors extra both <<<"$values"
  printf '| %s | %s | %s | %s | %s | %.3f | %.2f | %.2f | %s |\n' "$delay" "$p50" "$p99" "$p999" "$max" \
    "$(awk -v r="$errors" 'BEGIN { print r * 100 }')" "$extra" "$both" "$(cancel_columns)" >>"$TABLE"
  say "  tied-delay $delay: $(phase_line "$folder" 0), both ran $both%"
done

{
  echo
  echo "Rate $RATE req/s, $PHASE_DURATION per delay after a $WARMUP warm-up on a fresh cluster; hedge=tied, the default"
  echo "request. Latency in ms from each request's intended start. Machine: $(machine_line); $(date +%Y-%m-%d)."
  if [[ -s "$PROBLEMS" ]]; then echo; echo "Problems:"; sed 's/^/- /' "$PROBLEMS"; fi
} >>"$TABLE"
cat "$TABLE"
say "Done. Table: $TABLE"
[[ ! -s "$PROBLEMS" ]]
