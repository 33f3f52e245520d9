#!/usr/bin/env bash
# The cross-request adaptation benchmark (docs/benchmarks/adaptation.md): the tail suite's no-fault,
# slow-leaf (leaf 1 delays every sub-request 20 ms for 30 s) and long-pause (leaf 1 SIGSTOPped 2 s
# every 10 s) scenarios, in two or three settings, round after round (interleaved, as the suite's
# protocol asks), each setting on its own fresh cluster per round:
#   adaptive   the defaults: C3 replica choice, stall detection, probation with shadow requests
#   off        the same code with --no-latency-aware-choice --no-stall-detection --no-probation
#   before     (with --before DIR) another checkout's cluster, e.g. the code before the adaptation
# Writes one Markdown file: per setting the suite's table (median of the rounds and their range),
# and when leaf 1 went on probation and came back, from the root's log against the fault's times.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3
CAPACITY=""
BEFORE=""
PORT=8080
RESULTS="$HERE/results"
SCENARIOS="no-fault,slow-leaf,long-pause"
PHASE=30s
OUT=""

usage() {
  cat <<'USAGE'
Usage: benchmarks/adaptation.sh --capacity N [options]

Runs benchmarks/tail-suite.sh --only no-fault,slow-leaf,long-pause --runs 1 per setting and round:
"adaptive" (the defaults), "off" (--no-latency-aware-choice --no-stall-detection --no-probation) and,
with --before, "before" (the cluster of another checkout). Scenarios at half of --capacity.
Writes <results>/<time>-adaptation/adaptation.md. About 4 minutes per setting and round.

Options:
  --capacity N       The capacity (req/s at p99 <= 20 ms) the scenario rates are shares of (required:
                     compare settings at one rate).
  --rounds N         Rounds (default: 3).
  --before DIR       Also run the cluster of the checkout DIR (built) as the setting "before".
  --only LIST        Scenarios (default: no-fault,slow-leaf,long-pause).
  --phase-duration D The no-fault and long-pause phases (default: 30s; slow-leaf's are always 30 s).
  --port N           The root's HTTP port (default: 8080).
  --results DIR      Where the results folder goes (default: results/).
  --out DIR          Add the rounds to this results folder of an earlier run (so rounds can run at
                     different times) and report on all its rounds.
  -h, --help         This help.
USAGE
}

source "$HERE/benchmarks/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --capacity) require_value "$1" "${2:-}"; CAPACITY="$2"; shift 2 ;;
    --rounds) require_value "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --before) require_value "$1" "${2:-}"; BEFORE="$2"; shift 2 ;;
    --only) require_value "$1" "${2:-}"; SCENARIOS="$2"; shift 2 ;;
    --phase-duration) require_value "$1" "${2:-}"; PHASE="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    --out) require_value "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
require_capacity "$CAPACITY"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' (expected: >= 1)"
[[ -z "$BEFORE" || -x "$BEFORE/hedgerow" ]] || die "--before: no ./hedgerow in '$BEFORE'"
require_port_free "$PORT"

OUT="${OUT:-$RESULTS/$(date +%Y%m%d-%H%M%S)-adaptation}"
bench_init
mkdir -p "$OUT/suites"
FIRST_ROUND=$(($(find "$OUT/suites" -maxdepth 1 -name '*-adaptive-*' | wc -l) + 1))
SETTINGS=(adaptive off)
[[ -n "$BEFORE" ]] && SETTINGS+=(before)
settings_args() { # setting
  case "$1" in
    adaptive) ;;
    off) echo "--cluster-arg=--no-latency-aware-choice --cluster-arg=--no-stall-detection --cluster-arg=--no-probation" ;;
    before) echo "--checkout $BEFORE" ;;
  esac
}

say "Adaptation benchmark: ${SETTINGS[*]}, $ROUNDS rounds, capacity $CAPACITY; results in $OUT"
for round in $(seq "$FIRST_ROUND" $((FIRST_ROUND + ROUNDS - 1))); do
  for setting in "${SETTINGS[@]}"; do
    say "Round $round: $setting"
    # shellcheck disable=SC2046
    "$HERE/benchmarks/tail-suite.sh" --only "$SCENARIOS" --runs 1 --capacity "$CAPACITY" --phase-duration "$PHASE" \
      --port "$PORT" --results "$OUT/suites" --label "$setting-$round" $(settings_args "$setting") \
      >"$OUT/$setting-$round.log" 2>&1 || problem "$setting, round $round: the suite reported problems (see $OUT/$setting-$round.log)"
  done
done

REPORT="$OUT/adaptation.md"
{
  echo "# Adaptation benchmark: measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  echo "- Code: commit $(git -C "$HERE" rev-parse --short HEAD)${BEFORE:+; before: $(git -C "$BEFORE" rev-parse --short HEAD)}."
  echo "- Command: \`benchmarks/adaptation.sh --capacity $CAPACITY --rounds $ROUNDS${BEFORE:+ --before $BEFORE}\`$([[ $FIRST_ROUND -gt 1 ]] && echo " (rounds $FIRST_ROUND to $((FIRST_ROUND + ROUNDS - 1)), with --out, after $((FIRST_ROUND - 1)) earlier)"); scenarios at $((CAPACITY / 2)) req/s."
  for setting in "${SETTINGS[@]}"; do
    folders=()
    for suite in "$OUT"/suites/*-"$setting"-[0-9]*; do
      for run in "$suite"/runs/*; do
        [[ -f "$run/summary.json" ]] && folders+=("$run")
      done
    done
    echo
    echo "## $setting $(settings_args "$setting")"
    echo
    if [[ ${#folders[@]} -gt 0 ]]; then
      "$HEDGEROW" loadgen compare --spread --label "$setting" --results "$OUT/compare" "${folders[@]}" 2>>"$OUT/compare.err" \
        | sed '/^Comparison: /d'
    fi
  done
  echo
  echo "## Probation of leaf 1 in slow-leaf (from the root's log, against the fault's inject and clear)"
  echo
  python3 "$HERE/benchmarks/probation_times.py" "$OUT"/suites/*/
} >"$REPORT"
cat "$REPORT"
say "Done. Report: $REPORT"
[[ ! -s "$PROBLEMS" ]] || { echo "$(wc -l <"$PROBLEMS") problem(s):" >&2; cat "$PROBLEMS" >&2; exit 1; }
