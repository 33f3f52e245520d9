#!/usr/bin/env bash
# The backup-requests benchmark (docs/benchmarks/backup-requests.md) in one command: starts a local
# cluster with fault injection, warms it, runs the three scenarios of
# docs/benchmarks/backup-requests/ (no fault; 1% of all leaf sub-requests delayed 1 s; leaf 1
# stalled 150 ms every second), each comparing four policies (off, backup after 10 ms, hedged at
# p95, tied), stops the cluster, and writes one Markdown table of scenario x policy.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCENARIO_DIR="$HERE/docs/benchmarks/backup-requests"
ALL_SCENARIOS=(no-fault delay-1pct-1s stall-150ms)
# The workload of the scenario files, for the warm-up and a capacity search (see no-fault.json).
WORKLOAD=(--mix cheap --no-snippets --no-stored-fields)

RATE=1000
PHASE_DURATION=""
SCENARIO_WARMUP=""
WARMUP=90s
RESULTS="$HERE/results"
PORT=8080
# The delay scenario holds 1% of sub-requests for 1 s on their worker: ~40 at once per leaf at
# 1,000 req/s. Leaves need more workers than that, or hedging off would measure an overload.
LEAF_WORKERS=64
ONLY=""

usage() {
  cat <<'USAGE'
Usage: benchmarks/backup-requests.sh [options]

Runs the backup-requests benchmark end to end: starts
  ./hedgerow local --leaves 4 --replicas 2 --partitions 16 --leaf-workers 64 --fault-injection
warms it, runs docs/benchmarks/backup-requests/{no-fault,delay-1pct-1s,stall-150ms}.json through
./hedgerow loadgen (each: a warm-up, then off, backup-10ms, hedged-p95 and tied), stops the cluster
(also on Ctrl-C or failure), and writes <results>/<time>-backup-requests/backup-requests.md: one
table of scenario x policy (Avg, StdDev, p50, p95, p99, p99.9, max, goodput, errors %, tainted %,
extra leaf %, both ran %, root p99, generator lag p99, check), ready for
docs/benchmarks/backup-requests.md. Takes about 17 minutes with the defaults.

Options:
  --rate N|auto          Open-loop (Poisson) rate of every phase, requests/s (default: 1000, about half
                         of what the cheap mix with ids only sustains at p99 <= 20 ms on 2 cores).
                         auto: measure the capacity first (loadgen --find-capacity, ~2 min) and use half.
  --phase-duration D     Length of each measured phase (default: the files', 60s).
  --scenario-warmup D    Length of each of a scenario's three unmeasured warm-ups, one per hedging
                         mode so each mode's code is compiled before it is measured (default: 10s).
  --warmup D             Load on the fresh cluster before anything is measured (default: 90s).
  --only LIST            Run only these scenarios, comma-separated (default: all three).
  --port N               The root's HTTP port (default: 8080).
  --leaf-workers N       Search threads per leaf (default: 64; the 1 s delays hold a worker each).
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

[[ "$RATE" == auto || "$RATE" =~ ^[1-9][0-9]*$ ]] || die "--rate: '$RATE' (expected: a whole number of requests/s, or auto)"
[[ "$LEAF_WORKERS" =~ ^[1-9][0-9]*$ ]] || die "--leaf-workers: '$LEAF_WORKERS' (expected: >= 1)"
[[ -z "$PHASE_DURATION" ]] || require_duration --phase-duration "$PHASE_DURATION"
[[ -z "$SCENARIO_WARMUP" ]] || require_duration --scenario-warmup "$SCENARIO_WARMUP"
[[ "$WARMUP" =~ ^([1-9][0-9]*)(s|m)$ ]] || die "--warmup: '$WARMUP' (expected whole seconds or minutes, e.g. 90s, 2m)"
WARMUP_SECONDS=${BASH_REMATCH[1]}
[[ "${BASH_REMATCH[2]}" == s ]] || WARMUP_SECONDS=$((WARMUP_SECONDS * 60))
SCENARIOS=("${ALL_SCENARIOS[@]}")
if [[ -n "$ONLY" ]]; then
  IFS=',' read -r -a SCENARIOS <<<"$ONLY"
  for name in "${SCENARIOS[@]}"; do
    [[ -f "$SCENARIO_DIR/$name.json" ]] || die "--only: no scenario '$name' (expected some of: ${ALL_SCENARIOS[*]})"
  done
fi
require_port_free "$PORT"

URL="http://127.0.0.1:$PORT"
OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-backup-requests"
bench_init
say "Backup-requests benchmark: results in $OUT"
CLUSTER_ARGS=(--leaves 4 --replicas 2 --partitions 16 --leaf-workers "$LEAF_WORKERS" --fault-injection)
cluster_start backup-requests "$PORT" "${CLUSTER_ARGS[@]}"

if [[ "$RATE" == auto ]]; then
  WARM_RATE=500
else
  WARM_RATE=$(((RATE + 1) / 2))
fi
# A cold cluster loaded at once at a few hundred requests/s falls behind and stays behind while six
# JVMs compile on two cores (docs/loadgen.md, "Cold clusters"): half the warm-up gently, half at
# half the benchmark's rate.
GENTLE_RATE=$((WARM_RATE < 150 ? WARM_RATE : 150))
say "Warming the cluster: $((WARMUP_SECONDS / 2))s at $GENTLE_RATE req/s, then $((WARMUP_SECONDS - WARMUP_SECONDS / 2))s at $WARM_RATE req/s..."
warm_up 1 "$GENTLE_RATE" "$((WARMUP_SECONDS / 2))s" "${WORKLOAD[@]}"
warm_up 2 "$WARM_RATE" "$((WARMUP_SECONDS - WARMUP_SECONDS / 2))s" "${WORKLOAD[@]}"

if [[ "$RATE" == auto ]]; then
  say "Measuring capacity (steps of 10s, p99 <= 20 ms) to run at half of it..."
  folder="$(loadgen_run "$OUT/capacity.log" --target "$URL" --find-capacity --start-rate 500 --step 10s --warmup 5s \
    "${WORKLOAD[@]}" --label capacity --results "$OUT/capacity")" || die "the capacity search failed (see $OUT/capacity.log)"
  read -r capacity status < <(lg_read "$folder" capacity.rate_per_s capacity.status | paste -sd' ')
  [[ "$status" != NOT_FOUND ]] || die "the capacity search found no sustainable rate (see $folder/report.txt)"
  [[ "$status" != NOT_REACHED ]] || say "  every step passed: the capacity is above $capacity req/s"
  RATE=$(awk -v c="$capacity" 'BEGIN { printf "%d", c / 2 }')
  say "Capacity $(printf '%.0f' "$capacity") req/s ($status): running at $RATE req/s"
fi

FOLDERS=()
index=0
for name in "${SCENARIOS[@]}"; do
  index=$((index + 1))
  args=(--target "$URL" --scenario "$SCENARIO_DIR/$name.json" --rate "$RATE" --run-dir "$RUN_DIR" --results "$OUT/runs")
  [[ -z "$PHASE_DURATION" ]] || args+=(--phase-duration "$PHASE_DURATION")
  [[ -z "$SCENARIO_WARMUP" ]] || args+=(--warmup "$SCENARIO_WARMUP")
  say "Scenario $index/${#SCENARIOS[@]}: $name at $RATE req/s (log: $OUT/$name.log)"
  if folder="$(loadgen_run "$OUT/$name.log" "${args[@]}")" && [[ -n "$folder" ]]; then
    FOLDERS+=("$folder")
  fi
done

cluster_stop

TABLE="$OUT/backup-requests.md"
COMPARE=""
if [[ ${#FOLDERS[@]} -gt 0 ]]; then
  say "Tabulating ${#FOLDERS[@]} scenario(s)..."
  COMPARE="$(loadgen_compare "$OUT/compare.log" --markdown --label backup-requests --results "$OUT" "${FOLDERS[@]}")" \
    && [[ -n "$COMPARE" ]] || die "loadgen compare failed (see $OUT/compare.log)"
  # Errors in a phase, and every phase that is not a clean measurement, are problems of the benchmark.
  for folder in "${FOLDERS[@]}"; do
    phase_problems "$folder"
  done
fi

{
  echo "# Backup requests: measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  [[ ${#FOLDERS[@]} -eq 0 ]] || echo "- Generator: $(lg_read "${FOLDERS[0]}" settings.machine)"
  echo "- Cluster: \`./hedgerow local ${CLUSTER_ARGS[*]}\` (Europarl)."
  echo "- Load: open loop, Poisson arrivals at $RATE req/s, cheap mix, ids only (no stored fields or snippets),"
  echo "  \`timeout_ms\` 2000; warmed with $WARMUP (half at $GENTLE_RATE, half at $WARM_RATE req/s), then per scenario three warm-ups"
  echo "  (hedging off, hedged, tied) of ${SCENARIO_WARMUP:-10s} each and four measured phases of ${PHASE_DURATION:-60s}."
  echo "- Command: \`benchmarks/backup-requests.sh --rate $RATE${PHASE_DURATION:+ --phase-duration $PHASE_DURATION}${SCENARIO_WARMUP:+ --scenario-warmup $SCENARIO_WARMUP} --warmup $WARMUP --leaf-workers $LEAF_WORKERS${ONLY:+ --only $ONLY}\`"
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
