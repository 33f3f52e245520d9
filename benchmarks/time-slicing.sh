#!/usr/bin/env bash
# The cost-aware scheduling benchmark (docs/benchmarks/time-slicing.md) in one command: do expensive
# queries hold cheap ones hostage, and does a batch flood hurt interactive work? Two leaf settings,
# "on" (the defaults: CPU-time slices of 1 ms, the expensive lane, the root's batch admission) and
# "off" (--slice=0s --expensive-cost=0: every search runs to its end, one lane; --batch-in-flight 0:
# batch goes out as it comes), each on a fresh cluster, round after
# round (interleaved, as the tail suite's protocol asks). --round K --out DIR measures one round into
# DIR (each round its own hold of the CPU lock) and tabulates every round DIR holds. Each round and setting measures, at one
# fixed cheap rate:
#   cheap-only   the cheap mix alone: the baseline
#   mixed        the same cheap load plus expensive queries at 2% of the total, from a second generator
#   throughput   the 98/2 mix closed loop (16 in flight): what the cluster completes
#   batch-alone  a saturating batch load (priority=batch, 98/2 mix, closed loop, 16 in flight)
#   with-batch   the cheap interactive load next to that batch load
# The machine's CPU busy share is read from /proc/stat during each measured phase. Writes one
# Markdown file of tables (every run, then the medians with their range).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

SCALE=20
ROUNDS=3
PHASE=30s
WARMUP=20s
CHEAP_RATE=50
OR_TERMS=256
EXPENSIVE_PCT=2
PORT=8080
RESULTS="$HERE/results"
OUT=""
ONLY_ROUND=""
ONLY="on,off"
# Cheap: term and two-term queries of the generated set, ids only, k=10.
CHEAP_MIX="high_term=20,medium_term=20,low_term=10,and_high_high=9,and_high_med=9,or_high_high=9,or_high_med=9"
# Expensive, within every cost guard: ORs of 256 frequent terms (512 clauses over the two default
# fields, <= --max-clauses 1024) and sloppy phrases of 3 frequent terms (slop 30: 3 x 31 = 93 <=
# --max-phrase-cost 100), with k=1000 and exact totals, so Lucene cannot skip what does not compete.
EXPENSIVE_MIX="heavy_or=3,heavy_phrase=1"
EXPENSIVE_ARGS=(--k 1000 --total-hits-threshold 100000000)
WORKLOAD=(--no-snippets --no-stored-fields --timeout-ms 5000)
# Only the leaves' scheduling is measured: no result cache (the query set repeats queries), no
# canary round before the fan-out, no good-enough cutoff (every query waits for every partition).
ROOT_FLAGS=(--canaries 0 --cache-entries 0 --min-coverage 1)

usage() {
  cat <<'USAGE'
Usage: benchmarks/time-slicing.sh [options]

Runs the cost-aware scheduling benchmark on Europarl scaled up (./hedgerow index --scale N, built
once into $HEDGEROW_DATA/europarl-xN if missing), on ./hedgerow local --leaves 4 --replicas 2
--partitions 16 --canaries 0 --cache-entries 0 --min-coverage 1 (leaves with their default workers).
Settings: "on" = the defaults (leaves --slice=1ms, --expensive-cost=60000, --lane-slice=1ms; root --batch-in-flight 8);
"off" = leaves --slice=0s --expensive-cost=0, root --batch-in-flight 0. Each round starts a fresh cluster per setting and measures, at --cheap-rate:
cheap-only (the baseline), mixed (the cheap load plus expensive queries at --expensive-pct of the
total), throughput (98/2 mix at k=10 and the default threshold, closed loop, 16 in flight),
batch-alone (priority=batch, the same mix, closed loop, 16 in flight) and with-batch (the cheap
interactive load next to it).
Cheap: term and two-term queries, k=10. Expensive: heavy_or (an OR of --or-terms frequent terms)
and heavy_phrase (3 frequent terms, slop 30), 3 to 1, k=1000, exact totals. Ids only, timeout_ms 5000.
Writes <results>/<time>-time-slicing/time-slicing.md (or DIR/time-slicing.md with --out). About 10
minutes a round at the defaults.

Options:
  --scale N          Europarl scale (default: 20, 351,940 docs).
  --rounds N         Rounds, each setting once per round (default: 3).
  --round K          Measure only round K (1..rounds) into --out, then tabulate every round there: split a
                     long benchmark into holds of the CPU lock, one round each.
  --out DIR          Results folder (default: <results>/<time>-time-slicing).
  --phase D          Length of each measured phase (default: 30s).
  --warmup D         Load on each fresh cluster before anything is measured (default: 20s).
  --cheap-rate R     Cheap (interactive) queries per second, open loop (default: 50).
  --expensive-pct P  Expensive queries, percent of the mixed total (default: 2).
  --or-terms N       Frequent terms in each heavy_or (default: 256).
  --only LIST        on, off or both (default: on,off).
  --port N           The root's HTTP port (default: 8080).
  --results DIR      Where the results folder goes (default: results/).
  --smoke            A quick end-to-end check, not a measurement: --scale 1 --rounds 1 --phase 4s --warmup 4s.
  -h, --help         This help.
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --scale) require_value "$1" "${2:-}"; SCALE="$2"; shift 2 ;;
    --rounds) require_value "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --round) require_value "$1" "${2:-}"; ONLY_ROUND="$2"; shift 2 ;;
    --out) require_value "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    --phase) require_value "$1" "${2:-}"; PHASE="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; WARMUP="$2"; shift 2 ;;
    --cheap-rate) require_value "$1" "${2:-}"; CHEAP_RATE="$2"; shift 2 ;;
    --expensive-pct) require_value "$1" "${2:-}"; EXPENSIVE_PCT="$2"; shift 2 ;;
    --or-terms) require_value "$1" "${2:-}"; OR_TERMS="$2"; shift 2 ;;
    --only) require_value "$1" "${2:-}"; ONLY="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    --smoke) SCALE=1; ROUNDS=1; PHASE=4s; WARMUP=4s; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || die "--scale: '$SCALE' (expected: a whole number >= 1)"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' (expected: a whole number >= 1)"
if [[ -n "$ONLY_ROUND" ]]; then
  [[ "$ONLY_ROUND" =~ ^[1-9][0-9]*$ && "$ONLY_ROUND" -le "$ROUNDS" ]] || die "--round: '$ONLY_ROUND' (expected: 1..$ROUNDS)"
  [[ -n "$OUT" ]] || die "--round needs --out DIR (the folder every round of the run goes to)"
fi
[[ "$CHEAP_RATE" =~ ^[1-9][0-9]*$ ]] || die "--cheap-rate: '$CHEAP_RATE' (expected: a whole number >= 1)"
[[ "$EXPENSIVE_PCT" =~ ^[1-9][0-9]?$ ]] || die "--expensive-pct: '$EXPENSIVE_PCT' (expected: a percentage, 1..99)"
[[ "$OR_TERMS" =~ ^[1-9][0-9]*$ ]] || die "--or-terms: '$OR_TERMS' (expected: a whole number >= 1)"
require_duration --phase "$PHASE"
require_duration --warmup "$WARMUP"
SETTINGS=()
IFS=',' read -r -a parts <<<"$ONLY"
for part in "${parts[@]}"; do
  case "$part" in
    on|off) SETTINGS+=("$part") ;;
    *) die "--only: '$part' (expected: on, off or both, comma-separated)" ;;
  esac
done
require_port_free "$PORT"
PHASE_SECONDS="$(awk -v d="$PHASE" 'BEGIN { n = d + 0; if (d ~ /ms$/) n /= 1000; else if (d ~ /m$/) n *= 60; print int(n) }')"

URL="http://127.0.0.1:$PORT"
[[ -n "$OUT" ]] || OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-time-slicing"
bench_init
BACKGROUND_PIDS=()
# Waits for the generators and probes started in the background (not the cluster, also a child).
wait_background() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  BACKGROUND_PIDS=()
}
stop_background() { # generators and CPU probes still running
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
}
trap 'stop_background; cluster_stop' EXIT
say "Cost-aware scheduling benchmark: results in $OUT"

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
  "$HEDGEROW" loadgen queries --index "$INDEX" --out "$BASE_QUERIES" >"$OUT/queries.log" 2>&1 \
    || die "loadgen queries failed (see $OUT/queries.log)"
fi
# The set plus 200 heavy_or ($OR_TERMS distinct high_term queries ORed, as many as the set has at most) and 200 heavy_phrase (3 distinct
# high_term words in a phrase of slop 30), drawn with a fixed seed.
QUERIES="$OUT/queries.tsv"
{
  cat "$BASE_QUERIES"
  awk -F'\t' -v or_terms="$OR_TERMS" 'BEGIN { srand(42) }
    $1 == "high_term" && $2 ~ /^[[:alpha:]]+$/ { terms[count++] = $2 }
    function pick(n,    line, picked, i) {
      line = ""; delete used
      for (picked = 0; picked < n && picked < count; ) {
        i = int(rand() * count)
        if (i in used) continue
        used[i]; picked++
        line = line (line == "" ? "" : " ") terms[i]
      }
      return line
    }
    END {
      for (q = 0; q < 200; q++) print "heavy_or\t" pick(or_terms)
      for (q = 0; q < 200; q++) print "heavy_phrase\t\"" pick(3) "\"~30"
    }' "$BASE_QUERIES"
} >"$QUERIES"

EXPENSIVE_RATE="$(awk -v r="$CHEAP_RATE" -v p="$EXPENSIVE_PCT" 'BEGIN { printf "%.2f", r * p / (100 - p) }')"
# The 98/2 mix by weight: the cheap mix's weights times (100 - P), the expensive ones' share P.
MIXED_MIX="$(awk -v cheap="$CHEAP_MIX" -v expensive="$EXPENSIVE_MIX" -v p="$EXPENSIVE_PCT" 'BEGIN {
  n = split(cheap, c, ","); total = 0
  for (i = 1; i <= n; i++) { split(c[i], kv, "="); total += kv[2] }
  m = split(expensive, e, ","); etotal = 0
  for (i = 1; i <= m; i++) { split(e[i], kv, "="); etotal += kv[2] }
  out = ""
  for (i = 1; i <= n; i++) { split(c[i], kv, "="); out = out (out == "" ? "" : ",") kv[1] "=" int(kv[2] * (100 - p) * etotal + 0.5) }
  for (i = 1; i <= m; i++) { split(e[i], kv, "="); out = out "," kv[1] "=" int(kv[2] * total * p + 0.5) }
  print out }')"

start_cluster() { # label setting
  local leaf_args=()
  [[ "$2" == off ]] && leaf_args=(--leaf-arg=--slice=0s --leaf-arg=--expensive-cost=0 --batch-in-flight 0)
  cluster_start "$1" "$PORT" --index "$INDEX" --leaves 4 --replicas 2 --partitions 16 "${ROOT_FLAGS[@]}" "${leaf_args[@]}"
}

# cpu_probe FILE: the whole machine's busy percent from 5 s after now for the phase less 4 s (the
# generators' JVM start and warm-up left out), written to FILE.
cpu_probe() {
  local file="$1"
  (
    sleep 5
    read -r total1 idle1 < <(awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $5 + $6 }' /proc/stat)
    sleep $((PHASE_SECONDS > 8 ? PHASE_SECONDS - 4 : PHASE_SECONDS))
    read -r total2 idle2 < <(awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $5 + $6 }' /proc/stat)
    awk -v t="$((total2 - total1))" -v i="$((idle2 - idle1))" 'BEGIN { printf "%.0f\n", (t > 0 ? 100 * (1 - i / t) : 0) }' >"$file"
  ) &
  BACKGROUND_PIDS+=($!)
}

# run_loadgen LABEL ARGS...: one generator on the query set, quietly (its output in $OUT/LABEL.log,
# only its problems on the terminal: two may run at once); prints its results folder, nothing when it failed.
run_loadgen() {
  local label="$1"
  shift
  loadgen_run "$OUT/$label.log" --target "$URL" --queries "$QUERIES" "${WORKLOAD[@]}" --label "$label" \
    --results "$OUT/runs" --duration "$PHASE" --warmup 2s "$@" 2> >(grep --line-buffered '^PROBLEM: ' >&2) || true
}

# in_background LABEL ARGS...: run_loadgen in the background, its folder into $OUT/LABEL.folder.
in_background() {
  local label="$1"
  run_loadgen "$@" >"$OUT/$label.folder" &
  BACKGROUND_PIDS+=($!)
}

# Each measured run's folder, by name: "<setting> <round> <run>" -> folder; written to runs.tsv
# after each round and setting, so rounds measured by separate invocations (--round) add up.
declare -A RUNS
INDEX_FILE="$OUT/runs.tsv"
record_runs() { # setting round
  local run cpu_file
  for run in cheap-only mixed mixed-expensive throughput batch-alone with-batch batch; do
    cpu_file="$OUT/cpu-$1-r$2-$run.txt"
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$run" "${RUNS["$1 $2 $run"]:-}" "$(cat "$cpu_file" 2>/dev/null || echo -)"
  done >>"$INDEX_FILE"
}
measure() { # setting round
  local setting="$1" round="$2" tag="$1-r$2"
  say "  [$tag] cheap-only at $CHEAP_RATE req/s"
  cpu_probe "$OUT/cpu-$tag-cheap-only.txt"
  RUNS["$setting $round cheap-only"]="$(run_loadgen "$tag-cheap-only" --rate "$CHEAP_RATE" --mix "$CHEAP_MIX")"
  wait_background
  say "  [$tag] mixed: cheap at $CHEAP_RATE req/s + expensive at $EXPENSIVE_RATE req/s"
  cpu_probe "$OUT/cpu-$tag-mixed.txt"
  in_background "$tag-mixed-expensive" --rate "$EXPENSIVE_RATE" --mix "$EXPENSIVE_MIX" "${EXPENSIVE_ARGS[@]}" --seed 7
  RUNS["$setting $round mixed"]="$(run_loadgen "$tag-mixed" --rate "$CHEAP_RATE" --mix "$CHEAP_MIX")"
  wait_background
  RUNS["$setting $round mixed-expensive"]="$(cat "$OUT/$tag-mixed-expensive.folder")"
  say "  [$tag] throughput: the 98/2 mix, closed loop, 16 in flight"
  # One generator sends the whole mix with one k and threshold (the defaults): the expensive
  # queries' exact totals would make the frequent cheap terms expensive too.
  RUNS["$setting $round throughput"]="$(run_loadgen "$tag-throughput" --closed-loop 16 --mix "$MIXED_MIX")"
  say "  [$tag] batch alone: priority=batch, the 98/2 mix, closed loop, 16 in flight"
  cpu_probe "$OUT/cpu-$tag-batch-alone.txt"
  RUNS["$setting $round batch-alone"]="$(run_loadgen "$tag-batch-alone" --closed-loop 16 --priority batch \
    --mix "$MIXED_MIX" --seed 7)"
  wait_background
  say "  [$tag] cheap interactive at $CHEAP_RATE req/s next to the batch load"
  cpu_probe "$OUT/cpu-$tag-with-batch.txt"
  in_background "$tag-batch" --closed-loop 16 --priority batch --mix "$MIXED_MIX" --seed 7
  RUNS["$setting $round with-batch"]="$(run_loadgen "$tag-with-batch" --rate "$CHEAP_RATE" --mix "$CHEAP_MIX")"
  wait_background
  RUNS["$setting $round batch"]="$(cat "$OUT/$tag-batch.folder")"
}

if [[ -n "$ONLY_ROUND" ]]; then
  ROUND_LIST="$ONLY_ROUND"
  if [[ -f "$INDEX_FILE" ]] && awk -F'\t' -v r="$ONLY_ROUND" '$2 == r { found = 1 } END { exit !found }' "$INDEX_FILE"; then
    die "$INDEX_FILE has round $ONLY_ROUND already (pick another --round or --out)"
  fi
else
  ROUND_LIST="$(seq 1 "$ROUNDS")"
fi
for round in $ROUND_LIST; do
  for setting in "${SETTINGS[@]}"; do
    say "Round $round of $ROUNDS, leaves $setting"
    start_cluster "$setting-r$round" "$setting"
    warm_up "$setting-r$round" "$CHEAP_RATE" "$WARMUP" --queries "$QUERIES" "${WORKLOAD[@]}" --mix "$MIXED_MIX"
    measure "$setting" "$round"
    cluster_stop
    record_runs "$setting" "$round"
  done
done

sort -o "$INDEX_FILE" "$INDEX_FILE"

TABLE="$OUT/time-slicing.md"
{
  echo "# Cost-aware scheduling: measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generators all on it."
  docs="$(jq -r .doc_count "$INDEX/index.json" 2>/dev/null || echo "?")"
  echo "- Index: $INDEX_NAME ($docs docs, 16 partitions); cluster"
  echo "  \`./hedgerow local --leaves 4 --replicas 2 --partitions 16 ${ROOT_FLAGS[*]}\`, leaves with their default"
  echo "  workers; \"on\": the defaults (leaves: 1 ms CPU slices, the expensive lane; root: batch admission);"
  echo "  \"off\": \`--leaf-arg=--slice=0s --leaf-arg=--expensive-cost=0 --batch-in-flight 0\`."
  echo "- Cheap: $CHEAP_MIX, k=10. Expensive: $EXPENSIVE_MIX; heavy_or an OR of $OR_TERMS frequent terms,"
  echo "  heavy_phrase 3 frequent terms at slop 30; k=1000, total_hits_threshold 100000000. Ids only, timeout_ms 5000."
  echo "- Command: \`benchmarks/time-slicing.sh --scale $SCALE --rounds $ROUNDS --phase $PHASE --warmup $WARMUP --cheap-rate $CHEAP_RATE --expensive-pct $EXPENSIVE_PCT --or-terms $OR_TERMS --only $ONLY\`${ONLY_ROUND:+ (one \`--round K --out DIR\` per round)}"
  echo
  python3 "$HERE/benchmarks/time-slicing-tables.py" "$INDEX_FILE" "$CHEAP_RATE" "$EXPENSIVE_RATE"
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"
say "Wrote $TABLE"
cat "$TABLE"
[[ ! -s "$PROBLEMS" ]]
