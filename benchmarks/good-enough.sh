#!/usr/bin/env bash
# The good-enough benchmark (docs/benchmarks/good-enough.md, issue 5) in one command: starts a local
# cluster with fault injection and the result cache off, warms it, runs the scenarios of
# docs/benchmarks/good-enough/ and writes one Markdown table:
#   stall-300ms: leaf 1 stalled 300 ms every 2 s; wait-for-all (min_coverage 1.0) vs good-enough
#                (min_coverage 0.9), hedging off then on; on a cluster with canaries (the default);
#   canaries:    no fault, canaries on (--canaries 1) vs off (--canaries 0); canaries are a root
#                setting, so this runs the same load on two clusters, restarting in between.
# Stops the cluster on exit (also on Ctrl-C or failure).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCENARIO_DIR="$HERE/docs/benchmarks/good-enough"
ALL_SCENARIOS=(stall-300ms canaries)
# The workload of the scenario files, for the warm-up (see stall-300ms.json).
WORKLOAD=(--mix cheap --no-snippets --no-stored-fields)
# Every cluster: the result cache off, so repeated queries of the mix measure the cluster, not the cache.
CLUSTER_SHAPE=(--leaves 4 --replicas 2 --partitions 16 --fault-injection --cache-entries 0)

RATE=1000
PHASE_DURATION=""
SCENARIO_WARMUP=""
WARMUP=90s
RESULTS="$HERE/results"
PORT=8080
LEAF_WORKERS=""
ONLY=""

usage() {
  cat <<'USAGE'
Usage: benchmarks/good-enough.sh [options]

Runs the good-enough benchmark end to end (issue 5), writing
<results>/<time>-good-enough/good-enough.md: one table of scenario x policy (Avg, StdDev, p50, p95,
p99, p99.9, max, goodput, errors %, tainted %, tainted coverage, extra leaf %, both ran %, root p99,
generator lag p99, check), ready for docs/benchmarks/good-enough.md. Two scenarios (docs/benchmarks/good-enough/):

  stall-300ms  leaf 1 stalled 300 ms every 2 s; four phases: wait-for-all (min_coverage 1.0) and
               good-enough (min_coverage 0.9), hedging off, then hedged. On
                 ./hedgerow local --leaves 4 --replicas 2 --partitions 16 --fault-injection
                   --cache-entries 0 --canaries 1
               (canaries on, as by default: a canary on the stalled leaf is re-sent, never blocklisted).
               The root's good-enough cutoff is sampled from /metrics during the run and reported.
  canaries     no fault; canaries-on.json on that same cluster, then, after a restart with
               --canaries 0 and its own warm-up, canaries-off.json: the canaries' cost in median and p99.

Each cluster is warmed first, and stopped on exit (also on Ctrl-C or failure). Pid files and leaf
logs go to the results folder (--run-dir), so no other local cluster is touched. About 15 minutes
with the defaults.

Options:
  --rate N               Open-loop (Poisson) rate of every phase, requests/s (default: 1000, as the
                         backup-requests benchmark).
  --phase-duration D     Length of each measured phase (default: the files', 60s).
  --scenario-warmup D    Length of each scenario's unmeasured warm-up phases (default: the files', 10s).
  --warmup D             Load on each fresh cluster before anything is measured (default: 90s).
  --only LIST            Run only these scenarios, comma-separated: stall-300ms, canaries (default: both).
  --port N               The root's HTTP port (default: 8080).
  --leaf-workers N       Search threads per leaf (default: the leaf's, one per core).
  --results DIR          Where the results folder goes (default: results/).
  --smoke                A quick end-to-end check, not a measurement: --phase-duration 3s
                         --scenario-warmup 2s --warmup 10s.
  -h, --help             This help.

Exit status: 0 when every scenario ran cleanly; 1 when anything went wrong (a scenario that could not
run, a root that refused a phase's options, failed fault actions, errors in a phase, a phase the load
generator marks as not a clean measurement): the table is still written, with the problems listed
under it.
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rate) require_value "$1" "${2:-}"; RATE="$2"; shift 2 ;;
    --phase-duration) require_value "$1" "${2:-}"; PHASE_DURATION="$2"; shift 2 ;;
    --scenario-warmup) require_value "$1" "${2:-}"; SCENARIO_WARMUP="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; WARMUP="$2"; shift 2 ;;
    --only) require_value "$1" "${2:-}"; ONLY="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --leaf-workers) require_value "$1" "${2:-}"; LEAF_WORKERS="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    --smoke) PHASE_DURATION=3s; SCENARIO_WARMUP=2s; WARMUP=10s; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[[ "$RATE" =~ ^[1-9][0-9]*$ ]] || die "--rate: '$RATE' (expected: a whole number of requests/s)"
[[ -z "$LEAF_WORKERS" || "$LEAF_WORKERS" =~ ^[1-9][0-9]*$ ]] || die "--leaf-workers: '$LEAF_WORKERS' (expected: >= 1)"
[[ -z "$PHASE_DURATION" ]] || require_duration --phase-duration "$PHASE_DURATION"
[[ -z "$SCENARIO_WARMUP" ]] || require_duration --scenario-warmup "$SCENARIO_WARMUP"
[[ "$WARMUP" =~ ^([1-9][0-9]*)(s|m)$ ]] || die "--warmup: '$WARMUP' (expected whole seconds or minutes, e.g. 90s, 2m)"
WARMUP_SECONDS=${BASH_REMATCH[1]}
[[ "${BASH_REMATCH[2]}" == s ]] || WARMUP_SECONDS=$((WARMUP_SECONDS * 60))
SCENARIOS=("${ALL_SCENARIOS[@]}")
if [[ -n "$ONLY" ]]; then
  IFS=',' read -r -a SCENARIOS <<<"$ONLY"
  for name in "${SCENARIOS[@]}"; do
    [[ " ${ALL_SCENARIOS[*]} " == *" $name "* ]] || die "--only: no scenario '$name' (expected some of: ${ALL_SCENARIOS[*]})"
  done
fi
wants() { [[ " ${SCENARIOS[*]} " == *" $1 "* ]]; }
for file in stall-300ms canaries-on canaries-off; do
  [[ -f "$SCENARIO_DIR/$file.json" ]] || die "missing scenario file $SCENARIO_DIR/$file.json"
done
require_port_free "$PORT"

URL="http://127.0.0.1:$PORT"
OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-good-enough"
bench_init

SAMPLER_PID=""
stop_sampler() {
  [[ -n "$SAMPLER_PID" ]] || return 0
  kill "$SAMPLER_PID" 2>/dev/null || true
  wait "$SAMPLER_PID" 2>/dev/null || true
  SAMPLER_PID=""
}
trap 'stop_sampler; cluster_stop' EXIT

# Samples the root's good-enough cutoff (seconds) every 2 s into FILE, in the background.
start_sampler() { # file
  (
    while true; do
      curl -fsS --max-time 2 "$URL/metrics" 2>/dev/null \
        | awk '/^hedgerow_goodenough_cutoff_seconds[ {]/ { print $NF }' >>"$1" || true
      sleep 2
    done
  ) &
  SAMPLER_PID=$!
}

# start_cluster NAME CANARIES: starts the cluster, waits until it serves, warms it.
start_cluster() {
  local name="$1" canaries="$2"
  cluster_start "$name" "$PORT" "${CLUSTER_SHAPE[@]}" --canaries "$canaries" ${LEAF_WORKERS:+--leaf-workers "$LEAF_WORKERS"}
  # A cold cluster loaded at once falls behind while six JVMs compile on two cores
  # (docs/loadgen.md, "Cold clusters"): half the warm-up gently, half at half the benchmark's rate.
  say "Warming the cluster: $((WARMUP_SECONDS / 2))s at $GENTLE_RATE req/s, then $((WARMUP_SECONDS - WARMUP_SECONDS / 2))s at $WARM_RATE req/s..."
  warm_up "$name-1" "$GENTLE_RATE" "$((WARMUP_SECONDS / 2))s" "${WORKLOAD[@]}"
  warm_up "$name-2" "$WARM_RATE" "$((WARMUP_SECONDS - WARMUP_SECONDS / 2))s" "${WORKLOAD[@]}"
}

FOLDERS=()
run_scenario() { # file label
  local file="$1" label="$2" folder
  local args=(--target "$URL" --scenario "$SCENARIO_DIR/$file.json" --rate "$RATE" --run-dir "$RUN_DIR"
    --results "$OUT/runs" --label "$label")
  [[ -z "$PHASE_DURATION" ]] || args+=(--phase-duration "$PHASE_DURATION")
  [[ -z "$SCENARIO_WARMUP" ]] || args+=(--warmup "$SCENARIO_WARMUP")
  say "Scenario $label ($file.json) at $RATE req/s (log: $OUT/$label.log)"
  if folder="$(loadgen_run "$OUT/$label.log" "${args[@]}")" && [[ -n "$folder" ]]; then
    FOLDERS+=("$folder")
  fi
}

say "Good-enough benchmark: results in $OUT"
WARM_RATE=$(((RATE + 1) / 2))
GENTLE_RATE=$((WARM_RATE < 150 ? WARM_RATE : 150))

CUTOFFS="$OUT/cutoff-samples.txt"
# One cluster with canaries (the default) serves the stall scenario and the canaries-on half.
if wants stall-300ms || wants canaries; then
  start_cluster canaries-1 1
  if wants stall-300ms; then
    start_sampler "$CUTOFFS"
    run_scenario stall-300ms stall-300ms
    stop_sampler
    curl -s "$URL/admin/blocklist" >"$OUT/blocklist-after-stall.json" || true
  fi
  if wants canaries; then run_scenario canaries-on no-fault-canaries-1; fi
  cluster_stop
fi
if wants canaries; then
  start_cluster canaries-0 0
  run_scenario canaries-off no-fault-canaries-0
  cluster_stop
fi

TABLE="$OUT/good-enough.md"
COMPARE=""
if [[ ${#FOLDERS[@]} -gt 0 ]]; then
  say "Tabulating ${#FOLDERS[@]} run(s)..."
  COMPARE="$(loadgen_compare "$OUT/compare.log" --markdown --label good-enough --results "$OUT" "${FOLDERS[@]}")" \
    && [[ -n "$COMPARE" ]] || die "loadgen compare failed (see $OUT/compare.log)"
  # Errors in a phase, and every phase that is not a clean measurement, are problems of the benchmark.
  for folder in "${FOLDERS[@]}"; do
    phase_problems "$folder"
  done
fi

# The cutoff during the stall scenario, in ms: min, median, max of the samples.
cutoff_summary() {
  [[ -s "$CUTOFFS" ]] || { echo "not sampled (the root has no hedgerow_goodenough_cutoff_seconds metric)"; return; }
  sort -g "$CUTOFFS" | awk '{ v[NR] = $1 * 1000 } END {
    printf "min %.1f ms, median %.1f ms, max %.1f ms (%d samples, one every 2 s)", v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}

{
  echo "# Good-enough results and canaries: measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  [[ ${#FOLDERS[@]} -eq 0 ]] || echo "- Generator: $(lg_read "${FOLDERS[0]}" settings.machine)"
  echo "- Cluster: \`./hedgerow local ${CLUSTER_SHAPE[*]}${LEAF_WORKERS:+ --leaf-workers $LEAF_WORKERS} --canaries N\` (Europarl),"
  echo "  \`--canaries 1\` for stall-300ms and the canaries-on row, \`--canaries 0\` (restarted, warmed again) for canaries-off."
  echo "- Load: open loop, Poisson arrivals at $RATE req/s, cheap mix, ids only (no stored fields or snippets),"
  echo "  \`timeout_ms\` 2000; each cluster warmed with $WARMUP (half at $GENTLE_RATE, half at $WARM_RATE req/s), then per"
  echo "  scenario unmeasured warm-ups of ${SCENARIO_WARMUP:-10s} and measured phases of ${PHASE_DURATION:-60s}."
  echo "- stall-300ms: leaf 1 stalled 300 ms every 2 s in every measured phase; wait-for-all is \`min_coverage=1.0\`,"
  echo "  good-enough \`min_coverage=0.9\`; \`-off\` is \`hedge=off\`, \`-hedged\` is \`hedge=hedged\` (adaptive p95 delay)."
  if wants stall-300ms; then
    echo "  The root's good-enough cutoff during it: $(cutoff_summary)."
    if [[ -s "$OUT/blocklist-after-stall.json" ]]; then echo "  The root's blocklist after it: \`$(cat "$OUT/blocklist-after-stall.json")\`."; fi
  fi
  echo "- no-fault: \`hedge=off\`, \`min_coverage=1.0\`; the rows differ only in the root's \`--canaries\`."
  echo "- Command: \`benchmarks/good-enough.sh --rate $RATE${PHASE_DURATION:+ --phase-duration $PHASE_DURATION}${SCENARIO_WARMUP:+ --scenario-warmup $SCENARIO_WARMUP} --warmup $WARMUP${LEAF_WORKERS:+ --leaf-workers $LEAF_WORKERS}${ONLY:+ --only $ONLY}\`"
  echo
  if [[ -n "$COMPARE" ]]; then
    markdown_table "$COMPARE"
  else
    echo "No scenario ran."
  fi
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"

echo
cat "$TABLE"
echo
say "Done. Table: $TABLE (runs in $OUT/runs, logs in $OUT)"
if [[ -s "$PROBLEMS" ]]; then
  echo "$(wc -l <"$PROBLEMS") problem(s), listed under the table: the numbers above are not a clean measurement." >&2
  exit 1
fi
