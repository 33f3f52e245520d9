#!/usr/bin/env bash
# The time-slicing benchmark (docs/benchmarks/time-slicing.md) in one command. For slicing off and
# on (two clusters, one after the other, leaves started with --slice=0s and --slice=1ms): a warm-up,
# the saturation throughput of the cheap mix and of the 98/2 mix (closed loop), then the 98/2 mix
# open loop at a share of capacity, cheap and expensive queries sent by two load generators at once
# so each class gets its own latency. Then, slicing on, an interactive load at a share of capacity
# alone and next to a batch load (priority=batch) that tries to saturate the cluster. Writes one
# Markdown file of tables.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

SCALE=20
DURATION=60s
WARMUP=60s
THROUGHPUT_DURATION=20s
LOAD_SHARE=60
INTERACTIVE_SHARE=30
SLICE=1ms
PORT=8080
RESULTS="$HERE/results"
ONLY="slicing,priority"
# Cheap: term and two-term queries of the generated set. Expensive: an OR of 32 frequent terms.
CHEAP_MIX="high_term=20,medium_term=20,low_term=10,and_high_high=9,and_high_med=9,or_high_high=9,or_high_med=9"
EXPENSIVE_MIX="heavy_or=1"
EXPENSIVE_TERMS=32
WORKLOAD=(--no-snippets --no-stored-fields --timeout-ms 5000)
# Only the leaves' scheduling is measured: no result cache (the query set repeats queries), no
# canary round before the fan-out, no good-enough cutoff (every query waits for every partition).
ROOT_FLAGS=(--canaries 0 --cache-entries 0 --min-coverage 1)

usage() {
  cat <<'USAGE'
Usage: benchmarks/time-slicing.sh [options]

Runs the time-slicing benchmark end to end on Europarl scaled up (./hedgerow index --scale N, built
once into data/europarl-xN if missing):
  1. for slicing off and on, a cluster of ./hedgerow local --leaves 4 --replicas 2 --partitions 16
     --canaries 0 --cache-entries 0 --min-coverage 1 --leaf-arg=--slice=0s|1ms; a warm-up; saturation throughput (closed loop, 16 in flight) of the
     cheap mix and of the 98/2 mix; then 98% cheap + 2% expensive queries open loop at --load-share
     percent of the slicing-off 98/2 throughput, each class from its own load generator so each gets
     its own p50/p99/p99.9;
  2. slicing on: interactive cheap queries at --interactive-share percent of capacity alone, then
     next to a batch load (priority=batch, 98/2 mix, closed loop, 16 in flight) that tries to
     saturate the cluster.
Writes <results>/<time>-time-slicing/time-slicing.md, ready for docs/benchmarks/time-slicing.md.
Cheap queries: term and two-term queries of the generated query set; expensive: an OR of 32
frequent terms (heavy_or, made from the set's high_term queries). Takes about 15 minutes.

Options:
  --scale N              Europarl scale (default: 20, 351,940 docs).
  --duration D           Length of each measured open-loop phase (default: 60s).
  --throughput-duration D  Length of each saturation run (default: 20s).
  --warmup D             Load on each fresh cluster before anything is measured (default: 60s).
  --load-share P         Open-loop rate of the mixed run, percent of capacity (default: 60).
  --interactive-share P  Interactive rate of the priority run, percent of capacity (default: 30).
  --slice D              The slice budget of the "on" runs (default: 1ms).
  --only LIST            slicing, priority or both (default: slicing,priority).
  --port N               The root's HTTP port (default: 8080).
  --results DIR          Where the results folder goes (default: results/).
  --smoke                A quick end-to-end check, not a measurement: --scale 1 --duration 4s
                         --throughput-duration 3s --warmup 6s.
  -h, --help             This help.
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --scale) require_value "$1" "${2:-}"; SCALE="$2"; shift 2 ;;
    --duration) require_value "$1" "${2:-}"; DURATION="$2"; shift 2 ;;
    --throughput-duration) require_value "$1" "${2:-}"; THROUGHPUT_DURATION="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; WARMUP="$2"; shift 2 ;;
    --load-share) require_value "$1" "${2:-}"; LOAD_SHARE="$2"; shift 2 ;;
    --interactive-share) require_value "$1" "${2:-}"; INTERACTIVE_SHARE="$2"; shift 2 ;;
    --slice) require_value "$1" "${2:-}"; SLICE="$2"; shift 2 ;;
    --only) require_value "$1" "${2:-}"; ONLY="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    --smoke) SCALE=1; DURATION=4s; THROUGHPUT_DURATION=3s; WARMUP=6s; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || die "--scale: '$SCALE' (expected: a whole number >= 1)"
for share in "$LOAD_SHARE" "$INTERACTIVE_SHARE"; do
  [[ "$share" =~ ^[1-9][0-9]?$ ]] || die "share '$share' (expected: a percentage, 1..99)"
done
require_duration --duration "$DURATION"
require_duration --throughput-duration "$THROUGHPUT_DURATION"
require_duration --warmup "$WARMUP"
require_duration --slice "$SLICE"
RUN_SLICING=false
RUN_PRIORITY=false
IFS=',' read -r -a parts <<<"$ONLY"
for part in "${parts[@]}"; do
  case "$part" in
    slicing) RUN_SLICING=true ;;
    priority) RUN_PRIORITY=true ;;
    *) die "--only: '$part' (expected: slicing, priority or both, comma-separated)" ;;
  esac
done
require_port_free "$PORT"

URL="http://127.0.0.1:$PORT"
OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-time-slicing"
bench_init
LOADGEN_PIDS=()
stop_loadgens() { # the background generators of the two-class runs
  local pid
  for pid in "${LOADGEN_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
}
trap 'stop_loadgens; cluster_stop' EXIT
say "Time-slicing benchmark: results in $OUT"

if [[ "$SCALE" == 1 ]]; then
  INDEX_NAME=europarl
else
  INDEX_NAME="europarl-x$SCALE"
fi
INDEX="$HEDGEROW_DATA/$INDEX_NAME"
if [[ ! -f "$INDEX/index.json" ]]; then
  say "Indexing Europarl x$SCALE into $INDEX (once; log: $OUT/index.log)..."
  if [[ "$SCALE" == 1 ]]; then
    "$HEDGEROW" index >"$OUT/index.log" 2>&1 || die "indexing failed (see $OUT/index.log)"
  else
    "$HEDGEROW" index --scale "$SCALE" >"$OUT/index.log" 2>&1 || die "indexing failed (see $OUT/index.log)"
  fi
fi

BASE_QUERIES="$HEDGEROW_DATA/queries/$INDEX_NAME-42.tsv"
if [[ ! -f "$BASE_QUERIES" ]]; then
  say "Generating the query set of $INDEX_NAME (once)..."
  "$HEDGEROW" loadgen queries --index "$INDEX" >"$OUT/queries.log" 2>&1 || die "loadgen queries failed (see $OUT/queries.log)"
fi
# The set plus heavy_or: 200 ORs of $EXPENSIVE_TERMS distinct high_term queries each, drawn with a fixed seed.
QUERIES="$OUT/queries.tsv"
{
  cat "$BASE_QUERIES"
  awk -F'\t' -v n="$EXPENSIVE_TERMS" 'BEGIN { srand(42) }
    $1 == "high_term" { terms[count++] = $2 }
    END {
      for (q = 0; q < 200; q++) {
        line = ""; delete used
        for (picked = 0; picked < n && picked < count; ) {
          i = int(rand() * count)
          if (i in used) continue
          used[i]; picked++
          line = line (line == "" ? "" : " ") terms[i]
        }
        print "heavy_or\t" line
      }
    }' "$BASE_QUERIES"
} >"$QUERIES"

start_cluster() { # label slice
  cluster_start "$1" "$PORT" --index "$INDEX" --leaves 4 --replicas 2 --partitions 16 "${ROOT_FLAGS[@]}" \
    --leaf-arg="--slice=$2"
}

# run_loadgen LABEL ARGS...: one load generator on the query set, quietly (its output in $OUT/LABEL.log,
# only its problems on the terminal: two run at once); prints its results folder, nothing when it failed.
run_loadgen() {
  local label="$1"
  shift
  loadgen_run "$OUT/$label.log" --target "$URL" --queries "$QUERIES" "${WORKLOAD[@]}" --label "$label" \
    --results "$OUT/runs" "$@" 2> >(grep --line-buffered '^PROBLEM: ' >&2) || true
}

# figure FOLDER PATH: one figure of a run's phase (a steady run has one) from its summary.json, or n/a.
figure() {
  local value
  [[ -n "$1" ]] && value="$(lg_read "$1" "phases.0.$2" 2>/dev/null)" && [[ "$value" != null ]] || value=n/a
  echo "$value"
}

# whole NUMBER: rounded down to a whole number (n/a stays n/a).
whole() {
  [[ "$1" == n/a ]] && echo n/a || awk -v v="$1" 'BEGIN { printf "%d", v }'
}

row() { # label folder: a table row of one run's phase
  local achieved="n/a" p50="n/a" p99="n/a" p999="n/a" max="n/a" errors="n/a" tainted="n/a" values
  if [[ -n "$2" ]] && values="$(lg_read "$2" phases.0.achieved_rate phases.0.latency_ms.answered.p50 \
      phases.0.latency_ms.answered.p99 phases.0.latency_ms.answered.p99_9 phases.0.latency_ms.answered.max \
      phases.0.errors phases.0.tainted_pct | paste -sd' ')"; then
    read -r achieved p50 p99 p999 max errors tainted <<<"${values//null/n/a}"
    achieved="$(printf '%.0f' "$achieved")"
    tainted="$(printf '%.2f' "$tainted")"
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$achieved" "$p50" "$p99" "$p999" "$max" "$errors" "$tainted"
}

warm() { # label
  local rate=$((SCALE > 5 ? 100 : 300))
  say "  warming the cluster: $WARMUP at $rate req/s, 98/2 mix"
  warm_up "$1" "$rate" "$WARMUP" --queries "$QUERIES" "${WORKLOAD[@]}" --mix "$CHEAP_MIX,$EXPENSIVE_MIX"
}

MIXED_MIX="high_term=1960,medium_term=1960,low_term=980,and_high_high=882,and_high_med=882,or_high_high=882,or_high_med=882,heavy_or=172"
declare -A THROUGHPUT_CHEAP THROUGHPUT_MIXED CHEAP_RUN EXPENSIVE_RUN
RATE=""
if $RUN_SLICING; then
  for mode in off on; do
    slice=0s
    [[ "$mode" == on ]] && slice="$SLICE"
    start_cluster "slicing-$mode" "$slice"
    warm "slicing-$mode"
    say "  saturation throughput (closed loop, 16 in flight, $THROUGHPUT_DURATION each): cheap mix, 98/2 mix"
    f="$(run_loadgen "throughput-cheap-$mode" --closed-loop 16 --duration "$THROUGHPUT_DURATION" --warmup 3s --mix "$CHEAP_MIX")"
    THROUGHPUT_CHEAP[$mode]="$(whole "$(figure "$f" achieved_rate)")"
    f="$(run_loadgen "throughput-mixed-$mode" --closed-loop 16 --duration "$THROUGHPUT_DURATION" --warmup 3s --mix "$MIXED_MIX")"
    THROUGHPUT_MIXED[$mode]="$(whole "$(figure "$f" achieved_rate)")"
    say "    cheap ${THROUGHPUT_CHEAP[$mode]} req/s, 98/2 ${THROUGHPUT_MIXED[$mode]} req/s"
    if [[ -z "$RATE" ]]; then
      [[ "${THROUGHPUT_MIXED[$mode]}" != n/a ]] || die "no throughput measured (see $OUT/throughput-mixed-$mode.log)"
      RATE="$(awk -v t="${THROUGHPUT_MIXED[$mode]}" -v s="$LOAD_SHARE" 'BEGIN { printf "%d", t * s / 100 }')"
    fi
    cheap_rate="$(awk -v r="$RATE" 'BEGIN { printf "%.1f", r * 0.98 }')"
    expensive_rate="$(awk -v r="$RATE" 'BEGIN { printf "%.1f", r * 0.02 }')"
    say "  98/2 open loop at $RATE req/s for $DURATION: cheap $cheap_rate req/s and expensive $expensive_rate req/s, two generators"
    run_loadgen "mixed-expensive-$mode" --rate "$expensive_rate" --duration "$DURATION" --warmup 3s --mix "$EXPENSIVE_MIX" \
      --seed 7 >"$OUT/mixed-expensive-$mode.folder" &
    LOADGEN_PIDS+=($!)
    CHEAP_RUN[$mode]="$(run_loadgen "mixed-cheap-$mode" --rate "$cheap_rate" --duration "$DURATION" --warmup 3s --mix "$CHEAP_MIX")"
    wait "${LOADGEN_PIDS[-1]}" || true
    EXPENSIVE_RUN[$mode]="$(cat "$OUT/mixed-expensive-$mode.folder")"
    say "    cheap p99 $(figure "${CHEAP_RUN[$mode]}" latency_ms.answered.p99) ms, expensive p99 $(figure "${EXPENSIVE_RUN[$mode]}" latency_ms.answered.p99) ms"
    cluster_stop
  done
fi

ALONE_RUN=""
WITH_BATCH_RUN=""
BATCH_RUN=""
if $RUN_PRIORITY; then
  start_cluster "priority" "$SLICE"
  warm "priority"
  if [[ -z "${THROUGHPUT_CHEAP[on]:-}" ]]; then
    f="$(run_loadgen "throughput-cheap-priority" --closed-loop 16 --duration "$THROUGHPUT_DURATION" --warmup 3s --mix "$CHEAP_MIX")"
    THROUGHPUT_CHEAP[on]="$(whole "$(figure "$f" achieved_rate)")"
  fi
  [[ "${THROUGHPUT_CHEAP[on]}" != n/a ]] || die "no throughput measured (see $OUT/throughput-cheap-*.log)"
  INTERACTIVE_RATE="$(awk -v t="${THROUGHPUT_CHEAP[on]}" -v s="$INTERACTIVE_SHARE" 'BEGIN { printf "%d", t * s / 100 }')"
  say "  interactive cheap queries at $INTERACTIVE_RATE req/s alone for $DURATION"
  ALONE_RUN="$(run_loadgen "interactive-alone" --rate "$INTERACTIVE_RATE" --duration "$DURATION" --warmup 3s --mix "$CHEAP_MIX")"
  say "  the same next to a batch load (priority=batch, 98/2 mix, closed loop, 16 in flight)"
  run_loadgen "batch" --closed-loop 16 --priority batch --duration "$DURATION" --warmup 3s --mix "$MIXED_MIX" --seed 7 \
    >"$OUT/batch.folder" &
  LOADGEN_PIDS+=($!)
  WITH_BATCH_RUN="$(run_loadgen "interactive-with-batch" --rate "$INTERACTIVE_RATE" --duration "$DURATION" --warmup 3s --mix "$CHEAP_MIX")"
  wait "${LOADGEN_PIDS[-1]}" || true
  BATCH_RUN="$(cat "$OUT/batch.folder")"
  cluster_stop
fi

TABLE="$OUT/time-slicing.md"
{
  echo "# Time-slicing: measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generators all on it."
  # The index's own manifest (not a load run's figure); jq is optional.
  docs="$(jq -r .doc_count "$INDEX/index.json" 2>/dev/null || echo "?")"
  echo "- Index: $INDEX_NAME ($docs docs, 16 partitions); cluster"
  echo "  \`./hedgerow local --leaves 4 --replicas 2 --partitions 16 ${ROOT_FLAGS[*]} --leaf-arg=--slice=0s|$SLICE\`"
  echo "  (no result cache, no canaries, no good-enough cutoff: only the leaves' scheduling differs)."
  echo "- Cheap: $CHEAP_MIX. Expensive: heavy_or, an OR of $EXPENSIVE_TERMS frequent terms. Ids only, timeout_ms 5000."
  echo "- Command: \`benchmarks/time-slicing.sh --scale $SCALE --duration $DURATION --warmup $WARMUP --load-share $LOAD_SHARE --interactive-share $INTERACTIVE_SHARE --slice $SLICE --only $ONLY\`"
  echo
  if $RUN_SLICING; then
    echo "Saturation throughput (closed loop, 16 in flight, $THROUGHPUT_DURATION), req/s:"
    echo
    echo "| slicing | cheap mix | 98/2 mix |"
    echo "| --- | ---: | ---: |"
    for mode in off on; do
      echo "| $mode | ${THROUGHPUT_CHEAP[$mode]} | ${THROUGHPUT_MIXED[$mode]} |"
    done
    echo
    echo "98% cheap + 2% expensive, open loop (Poisson) at $RATE req/s ($LOAD_SHARE% of the slicing-off 98/2 throughput), $DURATION; latency in ms:"
    echo
    echo "| run | achieved/s | p50 | p99 | p99.9 | max | errors | tainted % |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for mode in off on; do
      row "slicing $mode: cheap" "${CHEAP_RUN[$mode]}"
      row "slicing $mode: expensive" "${EXPENSIVE_RUN[$mode]}"
    done
    echo
  fi
  if $RUN_PRIORITY; then
    echo "Slicing $SLICE: interactive cheap queries at ${INTERACTIVE_RATE:-n/a} req/s ($INTERACTIVE_SHARE% of the cheap mix's throughput), alone and next to a batch load (priority=batch, 98/2 mix, closed loop, 16 in flight), $DURATION; latency in ms:"
    echo
    echo "| run | achieved/s | p50 | p99 | p99.9 | max | errors | tainted % |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    row "interactive alone" "$ALONE_RUN"
    row "interactive next to batch" "$WITH_BATCH_RUN"
    row "batch" "$BATCH_RUN"
    echo
  fi
  if [[ -s "$PROBLEMS" ]]; then
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"
say "Wrote $TABLE"
cat "$TABLE"
[[ ! -s "$PROBLEMS" ]]
