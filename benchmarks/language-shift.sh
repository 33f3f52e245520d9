#!/usr/bin/env bash
# Language shift (issue 16, docs/benchmarks/adaptation.md): an index routed by language, searches
# that each name one language, and a query mix that shifts from the 21 languages alike to 80%
# German (docs/benchmarks/suite/language-shift.json). Two settings, round after round, each on its
# own fresh ./hedgerow local --fault-injection serving that index:
#   selective  --selective-replication: hot partitions get an extra replica
#   static     the defaults (selective replication is off by default)
# Writes <results>/<time>-language-shift/language-shift.md: p50, p99, p99.9 per phase and setting
# (median of the rounds [min-max]), and when the root started the hot partitions' extra copies.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=2
RATE=""
PORT=8080
RESULTS="$HERE/results"

usage() {
  cat <<'USAGE'
Usage: benchmarks/language-shift.sh --rate N [options]

Builds data/europarl-lang (./hedgerow index --corpus europarl --routing lang:2) if it is not there,
then per round and setting starts ./hedgerow local --index data/europarl-lang --fault-injection
(with --selective-replication for "selective") and runs the language-shift scenario at N req/s:
phases mixed, shifted and settled, 30 s each. About 2.5 minutes per setting and round.

Options:
  --rate N       Requests per second of every phase (required: compare settings at one rate).
  --rounds N     Rounds (default: 2).
  --port N       The root's HTTP port (default: 8080).
  --results DIR  Where the results folder goes (default: results/).
  -h, --help     This help.
USAGE
}

source "$HERE/benchmarks/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rate) require_value "$1" "${2:-}"; RATE="$2"; shift 2 ;;
    --rounds) require_value "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --results) require_value "$1" "${2:-}"; RESULTS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$RATE" =~ ^[1-9][0-9]*$ ]] || die "--rate: '${RATE}' (expected: requests per second, e.g. --rate 400)"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '${ROUNDS}' (expected: a number >= 1)"
OUT="$RESULTS/$(date -u +%Y%m%d-%H%M%S)-language-shift"
URL="http://127.0.0.1:$PORT"
require_port_free "$PORT"
bench_init
mkdir -p "$OUT/logs"
INDEX="$HEDGEROW_DATA/europarl-lang"
SCENARIO="$HERE/docs/benchmarks/suite/language-shift.json"
PHASES=(mixed shifted settled)
SETTINGS=(selective static)

say "Index: $INDEX"
"$HEDGEROW" index --corpus europarl --routing lang:2 --name europarl-lang --data "$HEDGEROW_DATA" 2>&1 \
  | grep -v '^WARNING: Using incubator' | tail -n 2

declare -A FOLDERS HOT
for round in $(seq 1 "$ROUNDS"); do
  for setting in "${SETTINGS[@]}"; do
    args=(--index "$INDEX" --fault-injection)
    [[ "$setting" == selective ]] && args+=(--selective-replication)
    cluster_start "$setting-$round" "$PORT" "${args[@]}"
    started="$(date +%s)"
    folder="$(loadgen_run "$OUT/logs/$setting-$round.log" --target "$URL" --scenario "$SCENARIO" --run-dir "$RUN_DIR" \
      --results "$OUT/runs" --label "$setting-$round" --rate "$RATE")" || folder=""
    curl -fsS --max-time 5 "$URL/cluster" >"$OUT/logs/cluster-$setting-$round.json" 2>/dev/null || true
    cluster_stop
    if [[ -n "$folder" ]]; then
      FOLDERS[$setting]="${FOLDERS[$setting]:-} $folder"
      phase_problems "$folder"
      for phase in "${PHASES[@]}"; do say "  $setting $round / $phase: $(phase_line "$folder" "$phase")"; done
    fi
    # When the root started extra copies, in seconds from the cluster's start (its log's clock).
    HOT[$setting]="${HOT[$setting]:-}load from $(date -d "@$started" +%T) (shift 40 s later): $(grep -h \
      'extra copies of hot partitions' "$CLUSTER_LOG" | awk '{print $1}' | paste -sd' ' || true)"$'\n'
  done
done

# ---------------------------------------------------------------- report
percentile_cells() { # setting phase: "p50 | p99 | p99.9" each the median of the rounds [min-max]
  local setting="$1" phase="$2" key values
  for key in p50 p99 p99_9; do
    values=""
    for folder in ${FOLDERS[$setting]:-}; do
      values+="$(lg_read "$folder" "phases.$phase.latency_ms.answered.$key" 2>/dev/null || true) "
    done
    python3 - "$values" <<'PY'
import statistics, sys
v = sorted(float(x) for x in sys.argv[1].split())
print("-" if not v else f"{statistics.median(v):.1f} [{v[0]:.1f}-{v[-1]:.1f}]" if len(v) > 1 else f"{v[0]:.1f}", end="")
PY
    [[ "$key" == p99_9 ]] || printf ' | '
  done
}

REPORT="$OUT/language-shift.md"
{
  echo "# Language shift, $(date -u +%Y-%m-%d)"
  echo
  echo "$(machine_line); \`benchmarks/language-shift.sh --rate $RATE --rounds $ROUNDS\`; every phase at $RATE req/s,"
  echo "default request (stored fields, snippets), each search routed to one language's 2 of 16 partitions."
  echo
  echo "| setting | phase | p50 ms | p99 ms | p99.9 ms |"
  echo "| --- | --- | ---: | ---: | ---: |"
  for setting in "${SETTINGS[@]}"; do
    for phase in "${PHASES[@]}"; do
      echo "| $setting | $phase | $(percentile_cells "$setting" "$phase") |"
    done
  done
  echo
  echo "Extra copies of hot partitions started (root log times, one line per round):"
  echo
  for setting in "${SETTINGS[@]}"; do
    echo "- $setting: $(echo "${HOT[$setting]:-}" | sed '/^$/d' | sed 's/^/[/; s/$/]/' | paste -sd' ')"
  done
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$REPORT"
cat "$REPORT"
say "Report: $REPORT"
[[ ! -s "$PROBLEMS" ]]
