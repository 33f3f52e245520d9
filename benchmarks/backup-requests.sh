#!/usr/bin/env bash
# The backup-requests benchmark (docs/benchmarks/backup-requests.md) in one command: starts a local
# cluster with fault injection, warms it, runs the three scenarios of
# docs/benchmarks/backup-requests/ (no fault; 1% of all leaf sub-requests delayed 1 s; leaf 1
# stalled 150 ms every second), each comparing four policies (off, backup after 10 ms, hedged at
# p95, tied), stops the cluster, and writes one Markdown table of scenario x policy.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HEDGEROW="$HERE/hedgerow"
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
table of scenario x policy (Avg, StdDev, p50, p95, p99, p99.9, max, extra leaf %, both ran %),
ready for docs/benchmarks/backup-requests.md. Takes about 17 minutes with the defaults.

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
run, a root that refused a phase's options, failed fault actions, errors in a phase): the table is
still written, with the problems listed under it.
USAGE
}

die() {
  echo "error: $*" >&2
  exit 1
}

require_value() { # option value
  [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || die "$1 needs a value (see --help)"
}

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
[[ "$PORT" =~ ^[0-9]+$ && "$PORT" -ge 1 && "$PORT" -le 65535 ]] || die "--port: '$PORT' (expected: 1..65535)"
for duration in ${PHASE_DURATION:+"$PHASE_DURATION"} ${SCENARIO_WARMUP:+"$SCENARIO_WARMUP"}; do
  [[ "$duration" =~ ^[0-9]+(\.[0-9]+)?(ms|s|m|h)$ ]] || die "duration '$duration' (expected e.g. 150ms, 10s, 2m)"
done
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
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  die "port $PORT is in use: is a cluster running already? Stop it ('./hedgerow local stop') or pick --port"
fi

URL="http://127.0.0.1:$PORT"
OUT="$RESULTS/$(date +%Y%m%d-%H%M%S)-backup-requests"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PROBLEMS="$OUT/problems.txt"
: >"$PROBLEMS"
STARTED=$SECONDS

say() { # progress line with the elapsed time
  printf '[%3d:%02d] %s\n' $(((SECONDS - STARTED) / 60)) $(((SECONDS - STARTED) % 60)) "$*"
}

problem() {
  echo "$*" >>"$PROBLEMS"
  echo "PROBLEM: $*" >&2
}

CLUSTER_PID=""
stop_cluster() {
  [[ -n "$CLUSTER_PID" ]] || return 0
  if kill -0 "$CLUSTER_PID" 2>/dev/null; then
    say "Stopping the cluster (pid $CLUSTER_PID)..."
    kill -TERM "$CLUSTER_PID" 2>/dev/null || true
    local waited=0
    while kill -0 "$CLUSTER_PID" 2>/dev/null && [[ $waited -lt 30 ]]; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$CLUSTER_PID" 2>/dev/null; then
      kill -KILL "$CLUSTER_PID" 2>/dev/null || true
      # The root could not stop its leaves: stop them by their pid files.
      "$HEDGEROW" local stop || true
    fi
  fi
  CLUSTER_PID=""
}
trap stop_cluster EXIT
trap 'echo "Interrupted." >&2; exit 130' INT TERM

say "Backup-requests benchmark: results in $OUT"
# Build once here, in the foreground, so the cluster does not build in the background.
"$HEDGEROW" loadgen --version >/dev/null

say "Starting ./hedgerow local --leaves 4 --replicas 2 --partitions 16 --leaf-workers $LEAF_WORKERS --fault-injection --port $PORT (log: $OUT/cluster.log)..."
"$HEDGEROW" local --leaves 4 --replicas 2 --partitions 16 --leaf-workers "$LEAF_WORKERS" --fault-injection --port "$PORT" >"$OUT/cluster.log" 2>&1 &
CLUSTER_PID=$!
waited=0
until grep -qs '^Serving on ' "$OUT/cluster.log"; do
  if ! kill -0 "$CLUSTER_PID" 2>/dev/null; then
    tail -n 20 "$OUT/cluster.log" >&2
    CLUSTER_PID=""
    die "the cluster did not start (its log above, all of it in $OUT/cluster.log)"
  fi
  [[ $waited -lt 900 ]] || die "the cluster was not serving after 15 minutes (see $OUT/cluster.log)"
  if [[ $waited -gt 0 && $((waited % 30)) -eq 0 ]]; then
    say "  still starting: $(tail -n 1 "$OUT/cluster.log")"
  fi
  sleep 1
  waited=$((waited + 1))
done
say "Cluster serving on $URL (pid $CLUSTER_PID)"

if [[ "$RATE" == auto ]]; then
  WARM_RATE=500
else
  WARM_RATE=$(((RATE + 1) / 2))
fi
# A cold cluster loaded at once at a few hundred requests/s falls behind and stays behind while six
# JVMs compile on two cores (docs/loadgen.md, "Cold clusters"): half the warm-up gently, half at
# half the benchmark's rate.
GENTLE_RATE=$((WARM_RATE < 150 ? WARM_RATE : 150))
warm() { # step rate seconds
  "$HEDGEROW" loadgen --target "$URL" --rate "$2" --duration "$3s" --warmup 0s "${WORKLOAD[@]}" \
    --label "warmup-$1" --results "$OUT/warmup" >"$OUT/warmup-$1.log" 2>&1 \
    || { tail -n 20 "$OUT/warmup-$1.log" >&2; die "the warm-up failed (see $OUT/warmup-$1.log)"; }
  # The table row: achieved/s is field 4, errors 6, p99 13.
  say "  warm-up $1/2: $(awk '/^rate-/ { printf "achieved %s req/s, p99 %s ms, %s errors", $4, $13, $6 }' "$OUT/warmup-$1.log")"
}
say "Warming the cluster: $((WARMUP_SECONDS / 2))s at $GENTLE_RATE req/s, then $((WARMUP_SECONDS - WARMUP_SECONDS / 2))s at $WARM_RATE req/s..."
warm 1 "$GENTLE_RATE" $((WARMUP_SECONDS / 2))
warm 2 "$WARM_RATE" $((WARMUP_SECONDS - WARMUP_SECONDS / 2))

if [[ "$RATE" == auto ]]; then
  say "Measuring capacity (steps of 10s, p99 <= 20 ms) to run at half of it..."
  "$HEDGEROW" loadgen --target "$URL" --find-capacity --start-rate 500 --step 10s --warmup 5s "${WORKLOAD[@]}" \
    --results "$OUT/capacity" 2>&1 | tee "$OUT/capacity.log" | grep -E '^  step ' || true
  capacity="$(sed -n 's/^Highest sustainable rate: \([0-9]*\) req\/s.*/\1/p' "$OUT/capacity.log")"
  [[ -n "$capacity" && "$capacity" -gt 0 ]] || die "the capacity search found no sustainable rate (see $OUT/capacity.log)"
  RATE=$((capacity / 2))
  say "Capacity $capacity req/s: running at $RATE req/s"
fi

FOLDERS=()
index=0
for name in "${SCENARIOS[@]}"; do
  index=$((index + 1))
  args=(--target "$URL" --scenario "$SCENARIO_DIR/$name.json" --rate "$RATE" --results "$OUT/runs")
  [[ -z "$PHASE_DURATION" ]] || args+=(--phase-duration "$PHASE_DURATION")
  [[ -z "$SCENARIO_WARMUP" ]] || args+=(--warmup "$SCENARIO_WARMUP")
  say "Scenario $index/${#SCENARIOS[@]}: $name at $RATE req/s (log: $OUT/$name.log)"
  # tee ignores Ctrl-C, so what the generator prints while it undoes its faults still reaches the log.
  if "$HEDGEROW" loadgen "${args[@]}" 2>&1 | (trap '' INT TERM; exec tee "$OUT/$name.log"); then
    folder="$(sed -n 's/^Results: \(.*\) (report\.txt.*/\1/p' "$OUT/$name.log" | tail -n 1)"
    [[ -n "$folder" ]] && FOLDERS+=("$folder")
  else
    problem "$name did not run: $(grep -E '^error:' "$OUT/$name.log" | tail -n 1 || echo "the load generator failed, see $OUT/$name.log")"
  fi
  while IFS= read -r warning; do
    problem "$name: ${warning#warning: }"
  done < <(grep -E '^warning:' "$OUT/$name.log" || true)
done

stop_cluster

TABLE="$OUT/backup-requests.md"
if [[ ${#FOLDERS[@]} -gt 0 ]]; then
  say "Tabulating ${#FOLDERS[@]} scenario(s)..."
  "$HEDGEROW" loadgen compare --markdown --label backup-requests --results "$OUT" "${FOLDERS[@]}" >"$OUT/compare.log" 2>&1 \
    || { cat "$OUT/compare.log" >&2; die "loadgen compare failed"; }
  # Rows with errors (the errors % column, the 13th field when split on '|'), one line per scenario.
  while IFS= read -r line; do
    problem "$line"
  done < <(awk -F'|' '/^\| [^-]/ && $2 !~ /Scenario/ {
      gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $13)
      if ($13 + 0 > 0) { failed[$2] = failed[$2] (failed[$2] == "" ? "" : ", ") $3 " " $13 "%"; if (!($2 in seen)) { seen[$2]; order[++n] = $2 } }
    }
    END { for (i = 1; i <= n; i++) printf "%s: requests failed in %s (errors by reason in its log)\n", order[i], failed[order[i]] }' \
      "$OUT/compare.log")
fi

{
  echo "# Backup requests: measured $(date -u +%Y-%m-%d)"
  echo
  cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
  memory="$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
  os="$(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release 2>/dev/null)"
  java="$(grep -h '^  machine: ' "${FOLDERS[@]/%//report.txt}" 2>/dev/null | head -n 1 | sed 's/^  machine: //')"
  echo "- Machine: $(nproc) cores${cpu:+ ($cpu)}${memory:+, $memory}${os:+, $os}; the root, 4 leaf JVMs and the generator all on it."
  [[ -z "$java" ]] || echo "- Generator: $java"
  echo "- Cluster: \`./hedgerow local --leaves 4 --replicas 2 --partitions 16 --leaf-workers $LEAF_WORKERS --fault-injection\` (Europarl)."
  echo "- Load: open loop, Poisson arrivals at $RATE req/s, cheap mix, ids only (no stored fields or snippets),"
  echo "  \`timeout_ms\` 2000; warmed with $WARMUP (half at $GENTLE_RATE, half at $WARM_RATE req/s), then per scenario three warm-ups"
  echo "  (hedging off, hedged, tied) of ${SCENARIO_WARMUP:-10s} each and four measured phases of ${PHASE_DURATION:-60s}."
  echo "- Command: \`benchmarks/backup-requests.sh --rate $RATE${PHASE_DURATION:+ --phase-duration $PHASE_DURATION}${SCENARIO_WARMUP:+ --scenario-warmup $SCENARIO_WARMUP} --warmup $WARMUP --leaf-workers $LEAF_WORKERS${ONLY:+ --only $ONLY}\`"
  echo
  if [[ ${#FOLDERS[@]} -gt 0 ]]; then
    sed -n '/^|/,$p' "$OUT/compare.log" | sed '/^Comparison: /d'
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
