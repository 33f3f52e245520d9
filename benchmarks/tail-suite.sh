#!/usr/bin/env bash
# The standard tail suite (docs/benchmarks/tail-suite.md): the realistic scenarios every issue is
# measured with, on ./hedgerow local with default settings and the default request (stored fields
# and snippets, k=10, cache off), at rates set from the capacity measured in the same session.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE_DIR="$HERE/docs/benchmarks/suite"
# Run in this order each round; cold-start ends a round (it restarts the cluster).
ALL_SCENARIOS=(no-fault pause delay kill slow-leaf long-pause rolling-restart overload no-fault-cache cold-start)
# Run only when named with --only: kill-for-good needs a cluster that does not restart dead leaves;
# hot-leaf runs 4 minutes, for the placement's rebalancing (docs/benchmarks/adaptation.md).
EXTRA_SCENARIOS=(kill-for-good hot-leaf)
# Scenarios that need a feature a later issue brings; listed, not run, until it is there.
PENDING=()

QUICK=0
RUNS=""
CAPACITY=""
REMEASURE=0
ONLY=""
PORT=8080
RESULTS="$HERE/results"
PHASE_DURATION=""
SHARE=0.5
REPLICAS=""
CHECKOUT=""
EXTRA_CLUSTER_ARGS=()
LABEL=""
REQUEST_MIX=plain

usage() {
  cat <<'USAGE'
Usage: benchmarks/tail-suite.sh [options]

The standard tail suite. On ./hedgerow local (4 leaves, 16 partitions x 2 replicas, default settings
and --fault-injection, which changes nothing until a fault is injected), with the default request
(stored fields and snippets, k=10, cache=false) from ./hedgerow loadgen's default mix:

  capacity        the highest Poisson rate with p99 <= 20 ms, errors < 1%, nothing dropped,
                  found by loadgen --find-capacity and confirmed by a rerun; reused from earlier in the
                  session (results/tail-suite-capacity.env, same commit, < 6 h old) unless
                  --remeasure-capacity. Every other rate is a share of it.
  no-fault        50% of capacity.
  pause           leaf 1's process SIGSTOPped 150 ms every second.
  delay           1% of all sub-requests delayed 1 s (each leaf flips its own coins).
  kill            leaf 2 SIGKILLed 10 s into the phase, restarted at 20 s.
  slow-leaf       leaf 1 delays every sub-request 20 ms for 30 s: phases before, slowed and after,
                  30 s each whatever the mode (the fault's length is part of the scenario).
  long-pause      leaf 1's process SIGSTOPped 2 s every 10 s from 4 s into the phase.
  rolling-restart every leaf in turn stopped (SIGTERM) and restarted, one every 15 s.
  overload        2x capacity for 60 s.
  no-fault-cache  no fault, the root's result cache on (as users run it).
  cold-start      a freshly started cluster loaded at once at 50% (it restarts the cluster).
Only with --only (not in the default run):
  kill-for-good   leaf 2 SIGKILLed 10 s into a 70 s phase, not restarted (--cluster-arg=--no-leaf-restarts).
  hot-leaf        leaf 1 delays every sub-request 20 ms for 120 s: phases before, hot, hot-late and
                  after, 60 s each whatever the mode (for --cluster-arg=--rebalancing).

Each scenario runs --runs times, interleaved (round after round), each after its own unmeasured
warm-up phase. Full mode: measured phases long enough for 50,000 requests (p99.9 backed by 50
samples), 3 runs. --quick: 20 s phases, one run, about 10 minutes with a capacity from earlier;
its table marks the percentiles its samples cannot support (~).

Writes <results>/<time>-tail-suite/: tail-suite.md (one table, each figure the median of the runs
[min-max]: p50, p99, p99.9, max, goodput, errors, the refusals' p99 at the generator and at the root,
tainted, extra leaf requests, generator lag; under it, the overload scenario's refusal times against
issue 30's criterion, refusals answered in under 5 ms at the root),
per-run tables (runs.md), a chart per scenario (charts/<scenario>.png), every run's results folder
(runs/) and the cluster's logs.

Options:
  --quick                 The short mode described above.
  --runs N                Runs of each scenario (default: 3; 1 with --quick).
  --capacity N            Use this capacity (req/s) instead of measuring or reusing one.
  --remeasure-capacity    Measure the capacity even if one from earlier in the session is there.
  --only LIST             Run only these scenarios, comma-separated (default: all).
  --phase-duration D      Length of every measured phase (default: full 50,000 requests, quick 20s).
  --replicas N            Replicas per partition of the cluster (default: the cluster's, 2).
  --checkout DIR          Start the cluster from another checkout of Hedgerow (its ./hedgerow, on the
                          Europarl index in DIR/data), loaded by this one's generator: the same
                          instrument before and after a change.
  --cluster-arg ARG       Pass ARG to ./hedgerow local (repeatable), e.g. --cluster-arg=--canaries=0; the
                          settings are then not the defaults, and the table says so.
  --request-mix MIX       plain (default: GET /search?q=) or structured (the same queries as JSON bodies
                          of POST /search with filters, sorts, pages and facets): passed to the load
                          generator for the capacity, the warm-ups and every scenario, and said in the table.
  --label NAME            Name of the results folder and the table's title (default: tail-suite).
  --port N                The root's HTTP port (default: 8080).
  --results DIR           Where the results folder goes (default: results/).
  -h, --help              This help.

Exit status: 0 when every scenario ran and measured cleanly; 1 when anything went wrong (a
scenario that did not run, a fault that did not apply, an invalid phase): the tables are still
written, with the problems listed under them.
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --runs) require_value "$1" "${2:-}"; RUNS="$2"; shift 2 ;;
    --capacity) require_value "$1" "${2:-}"; CAPACITY="$2"; shift 2 ;;
    --remeasure-capacity) REMEASURE=1; shift ;;
    --only) require_value "$1" "${2:-}"; ONLY="$2"; shift 2 ;;
    --phase-duration) require_value "$1" "${2:-}"; PHASE_DURATION="$2"; shift 2 ;;
    --replicas) require_value "$1" "${2:-}"; REPLICAS="$2"; shift 2 ;;
    --checkout) require_value "$1" "${2:-}"; CHECKOUT="$2"; shift 2 ;;
    --cluster-arg) require_value "$1" "${2:-}"; EXTRA_CLUSTER_ARGS+=("$2"); shift 2 ;;
    --cluster-arg=*) EXTRA_CLUSTER_ARGS+=("${1#--cluster-arg=}"); shift ;;
    --label) require_value "$1" "${2:-}"; LABEL="$2"; shift 2 ;;
    --request-mix) require_value "$1" "${2:-}"; REQUEST_MIX="$2"; shift 2 ;;
    --request-mix=*) REQUEST_MIX="${1#--request-mix=}"; shift ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

RUNS="${RUNS:-$([[ $QUICK == 1 ]] && echo 1 || echo 3)}"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs: '$RUNS' (expected: >= 1)"
[[ -z "$CAPACITY" || "$CAPACITY" =~ ^[1-9][0-9]*$ ]] || die "--capacity: '$CAPACITY' (expected: whole requests/s)"
[[ -z "$PHASE_DURATION" || "$PHASE_DURATION" =~ ^[1-9][0-9]*s$ ]] || die "--phase-duration: '$PHASE_DURATION' (expected whole seconds, e.g. 90s)"
[[ "$REQUEST_MIX" == plain || "$REQUEST_MIX" == structured ]] || die "--request-mix: '$REQUEST_MIX' (expected: plain or structured)"
require_port_free "$PORT"
[[ -z "$REPLICAS" || "$REPLICAS" =~ ^[1-4]$ ]] || die "--replicas: '$REPLICAS' (expected: 1..4)"
if [[ -n "$CHECKOUT" ]]; then
  [[ -x "$CHECKOUT/hedgerow" ]] || die "--checkout: no ./hedgerow in '$CHECKOUT'"
  CHECKOUT="$(cd "$CHECKOUT" && pwd)"
fi
SCENARIOS=("${ALL_SCENARIOS[@]}")
if [[ -n "$ONLY" ]]; then
  IFS=',' read -r -a SCENARIOS <<<"$ONLY"
  for name in "${SCENARIOS[@]}"; do
    [[ " ${ALL_SCENARIOS[*]} ${EXTRA_SCENARIOS[*]} " == *" $name "* ]] \
      || die "--only: no scenario '$name' (expected some of: ${ALL_SCENARIOS[*]} ${EXTRA_SCENARIOS[*]})"
    [[ "$name" != kill-for-good || " ${EXTRA_CLUSTER_ARGS[*]:-} " == *" --no-leaf-restarts "* ]] \
      || die "--only kill-for-good: needs --cluster-arg=--no-leaf-restarts (else the supervisor restarts the leaf)"
  done
fi
for name in "${SCENARIOS[@]}"; do
  file="${name%-cache}"
  [[ -f "$SUITE_DIR/$file.json" ]] || die "missing scenario file $SUITE_DIR/$file.json"
done

URL="http://127.0.0.1:$PORT"
OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-${LABEL:-tail-suite}"
bench_init
mkdir -p "$OUT/runs" "$OUT/logs" "$OUT/charts"
say "Tail suite$([[ $QUICK == 1 ]] && echo " (quick)"): results in $OUT"
SERVERS="${CHECKOUT:-$HERE}"
COMMIT="$(git -C "$SERVERS" rev-parse --short HEAD 2>/dev/null || echo unknown)"
DIRTY="$(git -C "$SERVERS" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)"
CLUSTER_ARGS=(--fault-injection)
[[ -z "$REPLICAS" ]] || CLUSTER_ARGS+=(--replicas "$REPLICAS")
CLUSTER_ARGS+=(${EXTRA_CLUSTER_ARGS[@]+"${EXTRA_CLUSTER_ARGS[@]}"})
if [[ -n "$CHECKOUT" ]]; then
  say "The cluster comes from $CHECKOUT (commit $COMMIT); the generator from $HERE"
  HEDGEROW_CLUSTER="$CHECKOUT/hedgerow"
  (cd "$CHECKOUT" && ./hedgerow index --help >/dev/null) # builds it, in the foreground
fi

# A fresh cluster gets load before anything is measured: six JVMs compiling on two cores fall behind
# for a minute when loaded at once (the cold-start scenario measures exactly that).
warm_cluster() { # rate seconds
  say "Warming the cluster: $2 s at $1 req/s"
  loadgen_run "$OUT/logs/warm-$SECONDS.log" --target "$URL" --rate "$1" --duration "$2s" --warmup 0s \
    --request-mix "$REQUEST_MIX" --label warm --results "$OUT/warm" >/dev/null || die "the warm-up failed"
}

wait_leaves_up() { # the cluster's leaves, all up again (after a kill or a restart), and the root ready
  local waited=0
  # /health is liveness (200 whatever the leaves): its body counts the leaves up; /ready says serve.
  until curl -fsS --max-time 2 "$URL/ready" >/dev/null 2>&1 \
      && curl -fsS --max-time 2 "$URL/health" 2>/dev/null | grep -q '"leaves_up":4'; do
    [[ $waited -lt 120 ]] || { problem "not every leaf was up 120 s after $1"; return 0; }
    sleep 1
    waited=$((waited + 1))
  done
}

cluster_start suite "$PORT" "${CLUSTER_ARGS[@]}"
warm_cluster 100 $([[ $QUICK == 1 ]] && echo 20 || echo 30)
warm_cluster 250 $([[ $QUICK == 1 ]] && echo 20 || echo 30)

# ---------------------------------------------------------------- capacity
CAPACITY_FILE="$RESULTS/tail-suite-capacity.env"
CAPACITY_SOURCE="given with --capacity"
if [[ -z "$CAPACITY" && $REMEASURE == 0 && -f "$CAPACITY_FILE" ]]; then
  # shellcheck disable=SC1090
  source "$CAPACITY_FILE"
  # A capacity measured with another request mix is another capacity (files without a mix were plain).
  if [[ "${CAPACITY_COMMIT:-}" == "$COMMIT" && "${CAPACITY_CLUSTER:-}" == "${CLUSTER_ARGS[*]}" \
        && "${CAPACITY_MIX:-plain}" == "$REQUEST_MIX" \
        && $(($(date +%s) - ${CAPACITY_AT:-0})) -lt 21600 ]]; then
    CAPACITY="$CAPACITY_RATE"
    CAPACITY_SOURCE="measured earlier in this session ($(date -d "@$CAPACITY_AT" '+%H:%M'), $CAPACITY_FILE)"
  fi
fi
if [[ -z "$CAPACITY" ]]; then
  say "Finding the capacity (default request, p99 <= 20 ms)..."
  args=(--target "$URL" --find-capacity --start-rate 200 --warmup 10s --request-mix "$REQUEST_MIX" --label capacity
    --results "$OUT/runs")
  [[ $QUICK == 1 ]] && args+=(--step 10s --confirm-duration 20s --cool-down 3s)
  folder="$(loadgen_run "$OUT/logs/capacity.log" "${args[@]}")" || die "the capacity search failed (see $OUT/logs/capacity.log)"
  read -r rate status < <(lg_read "$folder" capacity.rate_per_s capacity.status | paste -sd' ')
  [[ "$status" != NOT_FOUND ]] || die "no rate stayed within the limits (see $folder/report.txt)"
  [[ "$status" != NOT_REACHED ]] || problem "the capacity search reached its ceiling: the capacity is above $rate req/s"
  CAPACITY="$(printf '%.0f' "$rate")"
  CAPACITY_SOURCE="measured now: $folder ($status)"
  printf 'CAPACITY_RATE=%s\nCAPACITY_AT=%s\nCAPACITY_COMMIT=%s\nCAPACITY_CLUSTER="%s"\nCAPACITY_MIX=%s\n' "$CAPACITY" \
    "$(date +%s)" "$COMMIT" "${CLUSTER_ARGS[*]}" "$REQUEST_MIX" >"$CAPACITY_FILE"
fi
RATE=$(awk -v c="$CAPACITY" -v s="$SHARE" 'BEGIN { printf "%d", c * s + 0.5 }')
OVERLOAD_RATE=$((CAPACITY * 2))
if [[ -n "$PHASE_DURATION" ]]; then
  PHASE_SECONDS="${PHASE_DURATION%s}"
elif [[ $QUICK == 1 ]]; then
  PHASE_SECONDS=20
else
  PHASE_SECONDS=$(((50000 + RATE - 1) / RATE + 2)) # 50,000 requests: p99.9 backed by 50 samples
fi
PHASE_DURATION="${PHASE_SECONDS}s"
max() { echo $(($1 > $2 ? $1 : $2)); }
OVERLOAD_SECONDS=$([[ $QUICK == 1 ]] && echo 30 || echo 60)
say "Capacity $CAPACITY req/s ($CAPACITY_SOURCE): scenarios at $RATE req/s, overload at $OVERLOAD_RATE req/s, measured phases of $PHASE_DURATION"

# ---------------------------------------------------------------- scenarios
declare -A FOLDERS_OF
run_scenario() { # scenario round
  local name="$1" round="$2" file="${1%-cache}"
  local label="$name" rate="$RATE" seconds="$PHASE_SECONDS"
  local args=(--target "$URL" --scenario "$SUITE_DIR/$file.json" --run-dir "$RUN_DIR" --results "$OUT/runs" --label "$label"
    --request-mix "$REQUEST_MIX")
  case "$name" in
    overload) rate="$OVERLOAD_RATE"; seconds="$OVERLOAD_SECONDS" ;;
    kill) seconds="$(max "$PHASE_SECONDS" 40)" ;;  # killed at 10 s, back at 20 s
    kill-for-good) seconds="$(max "$PHASE_SECONDS" 70)" ;;  # killed at 10 s, re-replicated from 40 s, back at the end
    rolling-restart) seconds="$(max "$PHASE_SECONDS" 75)" ;; # four leaves, one every 15 s from 5 s
    slow-leaf) seconds=30 ;; # before, 30 s slowed, after
    hot-leaf) seconds=60 ;; # before, 2 x 60 s hot (moves every 30 s at most), after
    long-pause) seconds="$(max "$PHASE_SECONDS" 30)" ;; # paused at 4, 14, 24 s...
    cold-start) seconds="$(max "$PHASE_SECONDS" 30)" ;;
    no-fault-cache) args+=(--use-cache) ;;
  esac
  args+=(--rate "$rate" --phase-duration "${seconds}s")
  say "Run $round/$RUNS: $name at $rate req/s"
  local folder
  if folder="$(loadgen_run "$OUT/logs/$name-$round.log" "${args[@]}")" && [[ -n "$folder" ]]; then
    FOLDERS_OF[$name]="${FOLDERS_OF[$name]:-} $folder"
  fi
  case "$name" in
    kill|kill-for-good|rolling-restart) wait_leaves_up "$name" ;;
    overload) say "  cooling down 15 s after the overload"; sleep 15 ;;
  esac
  # No healthy query may be blocklisted by any scenario: the suite's queries have no query of death.
  local blocklist
  blocklist="$(curl -fsS --max-time 5 "$URL/admin/blocklist" 2>/dev/null || true)"
  if [[ -n "$blocklist" && "$blocklist" != *'"entries":[]'* ]]; then
    problem "$name (run $round): healthy queries blocklisted: $blocklist"
    curl -fsS --max-time 5 -X DELETE "$URL/admin/blocklist" >/dev/null 2>&1 || true
  fi
}

for round in $(seq 1 "$RUNS"); do
  for name in "${SCENARIOS[@]}"; do
    [[ "$name" == cold-start ]] && continue
    run_scenario "$name" "$round"
  done
  if [[ " ${SCENARIOS[*]} " == *" cold-start "* ]]; then
    cluster_stop
    cluster_start "cold-$round" "$PORT" "${CLUSTER_ARGS[@]}"
    run_scenario cold-start "$round"
    [[ $round -lt $RUNS ]] && warm_cluster 250 20
  fi
done
cluster_stop

# ---------------------------------------------------------------- tables and charts
ALL_FOLDERS=()
for name in "${SCENARIOS[@]}"; do
  # shellcheck disable=SC2206
  folders=(${FOLDERS_OF[$name]:-})
  [[ ${#folders[@]} -gt 0 ]] || { problem "$name: no run completed"; continue; }
  ALL_FOLDERS+=("${folders[@]}")
  "$HEDGEROW" loadgen compare --label "$name" --results "$OUT/compare" "${folders[@]}" >"$OUT/logs/compare-$name.log" 2>&1 \
    && cp "$(sed -n 's/^Comparison: \(.*\) (compare.txt.*/\1/p' "$OUT/logs/compare-$name.log")/compare.png" "$OUT/charts/$name.png" \
    || problem "$name: no chart (see $OUT/logs/compare-$name.log)"
done
[[ ${#ALL_FOLDERS[@]} -gt 0 ]] || die "no scenario ran"
"$HEDGEROW" loadgen compare --spread --label suite --results "$OUT/compare" "${ALL_FOLDERS[@]}" >"$OUT/spread.md.log" \
  2>"$OUT/logs/compare-spread.err" || { cat "$OUT/logs/compare-spread.err" >&2; die "loadgen compare failed"; }
"$HEDGEROW" loadgen compare --markdown --label runs --results "$OUT/compare" "${ALL_FOLDERS[@]}" >"$OUT/runs.md.log" \
  2>"$OUT/logs/compare-runs.err" || die "loadgen compare failed (see $OUT/logs/compare-runs.err)"
sed '/^Comparison: /d' "$OUT/runs.md.log" >"$OUT/runs.md"
# Every phase that was not a clean measurement is a problem of the suite.
while IFS= read -r line; do
  problem "$line"
done < <(sed -n 's/^- \(.*\)$/\1/p' "$OUT/runs.md")

# Issue 30's criterion for overload: refusals answered in under 5 ms at the root. Shown per run, not
# made a problem: a problem says the measurement is unsound, this says how the build did.
REFUSAL_LIMIT_MS=5
refusal_lines() {
  local folder values count p99 max root_count root_p99 verdict round=0
  # shellcheck disable=SC2206
  local folders=(${FOLDERS_OF[overload]:-})
  for folder in ${folders[@]+"${folders[@]}"}; do
    round=$((round + 1))
    values="$(lg_read "$folder" phases.overloaded.refused phases.overloaded.latency_ms.refused.p99 \
      phases.overloaded.latency_ms.refused.max phases.overloaded.root.refused_latency_ms.count \
      phases.overloaded.root.refused_latency_ms.p99 2>/dev/null | paste -sd' ')" || { echo "- run $round: no refusal figures in $folder"; continue; }
    read -r count p99 max root_count root_p99 <<<"$values"
    if [[ "$root_p99" == null ]]; then
      verdict="the root's own time unknown (it did not serve /metrics/latency, or refused nothing)"
    elif awk -v p="$root_p99" -v l="$REFUSAL_LIMIT_MS" 'BEGIN { exit !(p < l) }'; then
      verdict="under ${REFUSAL_LIMIT_MS} ms: met"
    else
      verdict="not under ${REFUSAL_LIMIT_MS} ms: missed"
    fi
    echo "- run $round: $count refused, p99 $p99 ms (max $max ms) at the generator; root refusal p99 $root_p99 ms ($root_count refused at the root): $verdict"
  done
}

TABLE="$OUT/tail-suite.md"
if [[ "$REQUEST_MIX" == plain ]]; then
  REQUEST_MIX_TEXT="plain (\`GET /search?q=\`)"
else
  REQUEST_MIX_TEXT="structured (\`--request-mix structured\`: the same queries as \`POST /search\` bodies, with filters, sorts, pages and facets)"
fi
{
  echo "# ${LABEL:-Tail suite}$([[ $QUICK == 1 ]] && echo " (quick)"): measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  echo "- Code: commit $COMMIT${DIRTY:+ with uncommitted changes}."
  echo "- Cluster: \`./hedgerow local ${CLUSTER_ARGS[*]}\` (Europarl, 16 partitions x ${REPLICAS:-2} replicas over 4 leaves, default settings)${CHECKOUT:+, started from $CHECKOUT}."
  echo "- Request: the load generator's default mix with the server's defaults (stored fields, snippets, k=10), \`cache=false\` but in no-fault-cache; request mix: $REQUEST_MIX_TEXT."
  echo "- Capacity: $CAPACITY req/s at p99 <= 20 ms ($CAPACITY_SOURCE); scenarios at $RATE req/s ($SHARE of it), overload at $OVERLOAD_RATE req/s."
  echo "- Runs: $RUNS of each scenario, interleaved; measured phases of $PHASE_DURATION (at least 40 s for kill, 75 s for rolling-restart, 30 s for cold-start and long-pause, 30 s each for slow-leaf; overload ${OVERLOAD_SECONDS}s)."
  echo "- Command: \`benchmarks/tail-suite.sh$([[ $QUICK == 1 ]] && echo " --quick")${ONLY:+ --only $ONLY}$([[ "$RUNS" != 3 && $QUICK == 0 ]] && echo " --runs $RUNS")${REPLICAS:+ --replicas $REPLICAS}$(printf ' --cluster-arg=%s' ${EXTRA_CLUSTER_ARGS[@]+"${EXTRA_CLUSTER_ARGS[@]}"} | sed 's/^ --cluster-arg=$//')${CHECKOUT:+ --checkout $CHECKOUT}$([[ $REQUEST_MIX != plain ]] && echo " --request-mix $REQUEST_MIX")\`"
  [[ ${#PENDING[@]} -eq 0 ]] || echo "- Pending (need a later issue's feature): ${PENDING[*]}."
  echo
  sed '/^Comparison: /d' "$OUT/spread.md.log"
  if [[ -n "${FOLDERS_OF[overload]:-}" ]]; then
    echo
    echo "Overload: how fast refusals (503 overloaded) came back; issue 30 asks for under ${REFUSAL_LIMIT_MS} ms at the root (its own time, first byte in to last byte out). At the generator, from each request's intended start (null: nothing refused)."
    echo
    refusal_lines
  fi
  echo
  echo "Charts: charts/<scenario>.png (latency by percentile, every run). Per-run rows: runs.md."
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"

echo
cat "$TABLE"
echo
say "Done. Table: $TABLE"
if [[ -s "$PROBLEMS" ]]; then
  echo "$(wc -l <"$PROBLEMS") problem(s), listed under the table." >&2
  exit 1
fi
