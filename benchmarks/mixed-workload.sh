#!/usr/bin/env bash
# The mixed workload benchmark (docs/benchmarks/mixed-workload.md): capacity and the pause scenario's
# tail for the structured request mix (filters, sorts, pages, facets) against the plain query mix,
# measured in the same sitting, in interleaved rounds; optionally under several leaf settings (--configs),
# such as Lucene's query cache off and on.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ALL_MIXES=(plain structured)
ALL_CONFIGS=(defaults cache-off cache-on)
CONNECTIONS=64
PAUSE_SCENARIO="$HERE/docs/benchmarks/suite/pause.json"

QUICK=0
ROUNDS=""
MIX_LIST=""
CONFIG_LIST=""
DURATION=""
WARMUP=""
PAUSE_DURATION=""
PORT=8080
OUT_DIR=""

usage() {
  cat <<'USAGE'
Usage: benchmarks/mixed-workload.sh [options]

The searches users run (filters, sorts, pages, facets) against the plain query mix, on
./hedgerow local --leaves 4 --partitions 16 --replicas 2 (Europarl), with the default request
(stored fields and snippets, k=10, cache=false) and the load generator's default query mix:

  plain       GET /search?q=QUERY (what every other benchmark sends);
  structured  the same queries as JSON bodies of POST /search (loadgen --request-mix structured):
              plain 20%, filtered 25% (lang term or terms, a date range, a body_length range, or
              a bool of them), sorted 20% (date or body_length, desc or asc, score as tie-break),
              paged 15% (from 10..50), faceted 20% (terms on lang, yearly date_histogram, stats
              or range on body_length, or a panel of three).

Configurations (--configs; each runs every mix, each round):

  defaults    the leaves' defaults (what every other benchmark runs)
  cache-off   --leaf-arg=--query-cache=off: no Lucene query cache (today's default, named)
  cache-on    --leaf-arg=--query-cache=on: one Lucene query cache per leaf, filters cached once
              they recur (see 'hedgerow leaf --help')

For each round, for each configuration and mix (in turn, the order reversed every other round), on a
freshly started cluster that serves and whose /ready answers 200:
  warm-up   an unmeasured closed loop at 64 connections with that mix (--warmup long);
  capacity  issue 30's: a closed loop at 64 connections (--duration long, after a short warm-up of
            the generator's own JVM): complete answers/s; refused/s; the CPU time of the root and
            the leaf JVMs (/proc) per complete answer (serving-cost.sh's measurement, lib.sh);
  pause     the tail suite's pause scenario (docs/benchmarks/suite/pause.json: leaf 1 SIGSTOPped
            150 ms every second) with that mix, open loop (Poisson) at half of that mix's own
            capacity: p50, p99, p99.9, extra sub-requests (% of the leaf requests a search needs),
            errors. Full mode: long enough for 50,000 requests (p99.9 backed by 50 samples).

The load generator and the cluster both come from this checkout. Only one benchmark runs at a time:
the script waits for /tmp/hedgerow-bench.lock.

Writes <out>/summary.md (each figure the median of the rounds [min-max], structured / plain per
configuration, and with several configurations each one against the first, per mix), runs.tsv and
runs.md (every run), the generator's results folders (runs/) and the clusters' logs.

Options:
  --configs LIST      Leaf settings, comma-separated, from: defaults, cache-off, cache-on (default:
                      defaults). E.g. --configs cache-off,cache-on decides the query cache: both run
                      in every round, interleaved.
  --mixes LIST        Mixes, comma-separated, from: plain, structured (default: both). The query
                      cache matters to structured searches only (plain ones have no filter and no
                      field sort), so --mixes structured --configs cache-off,cache-on halves the run.
  --rounds N          Rounds (default: 3; 1 with --quick).
  --duration D        The capacity's measured closed loop (default: 30s; 10s with --quick).
  --warmup D          The unmeasured closed loop before it (default: 20s; 5s with --quick).
  --pause-duration D  The pause scenario's measured phase (default: 50,000 requests at its rate,
                      at least 60s; 10s with --quick).
  --quick             A smoke test: 1 round, short phases. Not a measurement.
  --port N            The root's HTTP port (default: 8080).
  --out DIR           Results folder (default: results/mixed-workload-<date>-<time>).
  -h, --help          This help.

Environment: HEDGEROW_DATA as for ./hedgerow (the Europarl index and the query set).
Exit status: 0 when every run measured cleanly (no errors: a body the root refuses is a 400, an
error); 1 when anything went wrong (the table is still written, with the problems listed under it).
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) require_value "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --configs) require_value "$1" "${2:-}"; CONFIG_LIST="$2"; shift 2 ;;
    --mixes) require_value "$1" "${2:-}"; MIX_LIST="$2"; shift 2 ;;
    --duration) require_value "$1" "${2:-}"; DURATION="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; WARMUP="$2"; shift 2 ;;
    --pause-duration) require_value "$1" "${2:-}"; PAUSE_DURATION="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --out) require_value "$1" "${2:-}"; OUT_DIR="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

ROUNDS="${ROUNDS:-$([[ $QUICK == 1 ]] && echo 1 || echo 3)}"
DURATION="${DURATION:-$([[ $QUICK == 1 ]] && echo 10s || echo 30s)}"
WARMUP="${WARMUP:-$([[ $QUICK == 1 ]] && echo 5s || echo 20s)}"
[[ -n "$PAUSE_DURATION" || $QUICK == 0 ]] || PAUSE_DURATION=10s
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' (expected: >= 1)"
[[ "$DURATION" =~ ^[1-9][0-9]*s$ ]] || die "--duration: '$DURATION' (expected: whole seconds, e.g. 30s)"
[[ "$WARMUP" =~ ^[1-9][0-9]*s$ ]] || die "--warmup: '$WARMUP' (expected: whole seconds, e.g. 20s)"
[[ -z "$PAUSE_DURATION" || "$PAUSE_DURATION" =~ ^[1-9][0-9]*s$ ]] \
  || die "--pause-duration: '$PAUSE_DURATION' (expected: whole seconds, e.g. 90s)"
[[ -f "$PAUSE_SCENARIO" ]] || die "missing scenario file $PAUSE_SCENARIO"
DURATION_S="${DURATION%s}"
CONFIGS=(defaults)
if [[ -n "$CONFIG_LIST" ]]; then
  IFS=',' read -r -a CONFIGS <<<"$CONFIG_LIST"
  for name in "${CONFIGS[@]}"; do
    [[ " ${ALL_CONFIGS[*]} " == *" $name "* ]] || die "--configs: no configuration '$name' (expected some of: ${ALL_CONFIGS[*]})"
  done
fi
MIXES=("${ALL_MIXES[@]}")
if [[ -n "$MIX_LIST" ]]; then
  IFS=',' read -r -a MIXES <<<"$MIX_LIST"
  for name in "${MIXES[@]}"; do
    [[ " ${ALL_MIXES[*]} " == *" $name "* ]] || die "--mixes: no mix '$name' (expected some of: ${ALL_MIXES[*]})"
  done
fi

config_args() { # config: the ./hedgerow local flags of a configuration
  case "$1" in
    defaults) ;;
    cache-off) echo --leaf-arg=--query-cache=off ;;
    cache-on) echo --leaf-arg=--query-cache=on ;;
  esac
}
# The generator's JVM is new for every run: it warms its own JIT this long before measuring.
GEN_WARMUP_S=$([[ $QUICK == 1 ]] && echo 2 || echo 5)
require_port_free "$PORT"

OUT="${OUT_DIR:-$HERE/results/mixed-workload-$(date +%Y%m%d-%H%M%S)}"
URL="http://127.0.0.1:$PORT"
bench_init
mkdir -p "$OUT/runs" "$OUT/logs"
COMMAND="benchmarks/mixed-workload.sh"
[[ $QUICK == 0 ]] || COMMAND+=" --quick"
[[ -z "$CONFIG_LIST" ]] || COMMAND+=" --configs $CONFIG_LIST"
[[ -z "$MIX_LIST" ]] || COMMAND+=" --mixes $MIX_LIST"
[[ $QUICK == 1 || "$ROUNDS" == 3 ]] || COMMAND+=" --rounds $ROUNDS"
[[ $QUICK == 1 || "$DURATION" == 30s ]] || COMMAND+=" --duration $DURATION"
[[ $QUICK == 1 || "$WARMUP" == 20s ]] || COMMAND+=" --warmup $WARMUP"
[[ $QUICK == 1 || -z "$PAUSE_DURATION" ]] || COMMAND+=" --pause-duration $PAUSE_DURATION"

# One benchmark at a time: numbers taken while another loads the same cores mean nothing.
exec 9>/tmp/hedgerow-bench.lock
if ! flock -n 9; then
  say "Another benchmark holds /tmp/hedgerow-bench.lock: waiting for it to finish..."
  flock 9
fi

COMMIT="$(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)"
DIRTY="$(git -C "$HERE" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)"
# Built again in the foreground (the sources may have changed while the lock was waited for); from
# here no ./hedgerow command may build, or later rounds would measure other code.
"$HEDGEROW" loadgen --version >/dev/null
export HEDGEROW_BUILD=never
for config in "${CONFIGS[@]}"; do
  for flag in $(config_args "$config"); do
    flag="${flag#--leaf-arg=}"
    "$HEDGEROW" leaf --help 2>&1 | grep -q -- "${flag%%=*}" || die "--configs $config: this build's leaf has no ${flag%%=*}"
  done
done
say "Mixed workload: ${MIXES[*]} x ${CONFIGS[*]}, $ROUNDS round(s), capacity phases of $DURATION; results in $OUT"

RUNS_TSV="$OUT/runs.tsv"
printf 'round\tconfig\tmix\tcapacity_per_s\trefused_per_s\tcpu_ms_per_answer\troot_cpu_ms_per_answer\tpause_rate_per_s\tp50_ms\tp99_ms\tp99_9_ms\textra_leaf_requests_pct\tpause_errors\tclosed_folder\tpause_folder\n' >"$RUNS_TSV"

# measure round config mix: one cluster, warm-up, capacity with CPU, the pause scenario at half of it.
measure() {
  local round="$1" config="$2" mix="$3" name="$3-$1"
  [[ "$config" == defaults ]] || name="$3-$2-$1"
  local mix_args=(--request-mix "$mix")
  # shellcheck disable=SC2046 # config_args's words are flags
  cluster_start "$name" "$PORT" --leaves 4 --partitions 16 --replicas 2 $(config_args "$config")
  await_ready "$name" || { cluster_stop; return 0; }
  local root="$CLUSTER_PID" leaves
  leaves="$(descendants "$root" | paste -sd' ')"
  say "  root pid $root, leaf processes: $leaves"

  say "  warm-up: closed loop at $CONNECTIONS for $WARMUP with the $mix mix (unmeasured)"
  loadgen_run "$OUT/logs/warmup-$name.log" --target "$URL" --closed-loop "$CONNECTIONS" --duration "$WARMUP" \
    --warmup 0s --label "warmup-$name" --results "$OUT/warmup" "${mix_args[@]}" >/dev/null 2>&1 \
    || { problem "$name: the warm-up failed (see $OUT/logs/warmup-$name.log)"; cluster_stop; return 0; }

  closed_loop_capacity "$name" "$CONNECTIONS" "$DURATION_S" "$GEN_WARMUP_S" "$root" "$leaves" "${mix_args[@]}" \
    || { cluster_stop; return 0; }
  local closed="$CLOSED_FOLDER" capacity="$CAPACITY_PER_S"
  say "  capacity: $capacity complete answers/s, $REFUSED_PER_S refused/s, $CPU_MS CPU ms per answer (root $ROOT_CPU_MS)"

  # The tail suite's pause scenario, its file and its fault runner, at half of this mix's capacity.
  local rate seconds pause="" p50="" p99="" p999="" extra="" errors=""
  rate="$(awk -v c="$capacity" 'BEGIN { printf "%d", c / 2 + 0.5 }')"
  if [[ "$rate" -ge 1 ]]; then
    if [[ -n "$PAUSE_DURATION" ]]; then
      seconds="${PAUSE_DURATION%s}"
    else
      seconds=$(((50000 + rate - 1) / rate + 2)) # 50,000 requests: p99.9 backed by 50 samples
      [[ $seconds -ge 60 ]] || seconds=60
    fi
    say "  pause: leaf 1 SIGSTOPped 150 ms every second, $rate req/s for ${seconds}s"
    if pause="$(loadgen_run "$OUT/logs/pause-$name.log" --target "$URL" --scenario "$PAUSE_SCENARIO" --run-dir "$RUN_DIR" \
        --rate "$rate" --phase-duration "${seconds}s" --label "pause-$name" --results "$OUT/runs" "${mix_args[@]}" \
        2>/dev/null)" && [[ -n "$pause" ]]; then
      phase_problems "$pause"
      read -r p50 p99 p999 extra errors < <(lg_read "$pause" phases.0.latency_ms.answered.p50 \
        phases.0.latency_ms.answered.p99 phases.0.latency_ms.answered.p99_9 phases.0.root.extra_leaf_requests_pct \
        phases.0.errors | paste -sd' ')
      say "  pause: $(awk -v a="$p50" -v b="$p99" -v c="$p999" -v x="$extra" -v e="$errors" \
        'BEGIN { printf "p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, extra sub-requests %.1f%%, %d errors", a, b, c, x, e }')"
    else
      problem "$name: the pause scenario did not run (see $OUT/logs/pause-$name.log)"
    fi
  else
    problem "$name: no pause scenario (capacity $capacity answers/s)"
  fi
  cluster_stop
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$config" "$mix" "$capacity" "$REFUSED_PER_S" \
    "$CPU_MS" "$ROOT_CPU_MS" "$rate" "$p50" "$p99" "$p999" "$extra" "$errors" "$closed" "$pause" >>"$RUNS_TSV"
}

# ---------------------------------------------------------------- rounds
# A mix's configurations side by side (cache-off then cache-on of structured, say): the pair compared
# runs minutes apart, on the machine in the same state.
RUNS=()
for mix in "${MIXES[@]}"; do
  for config in "${CONFIGS[@]}"; do
    RUNS+=("$config $mix")
  done
done
for round in $(seq 1 "$ROUNDS"); do
  # The order reversed every other round, so no run always comes on the machine another just warmed.
  order=("${RUNS[@]}")
  if [[ $((round % 2)) == 0 ]]; then
    order=()
    for ((i = ${#RUNS[@]} - 1; i >= 0; i--)); do order+=("${RUNS[$i]}"); done
  fi
  for run in "${order[@]}"; do
    read -r config mix <<<"$run"
    say "Round $round/$ROUNDS: the $mix mix$([[ "$config" == defaults ]] || echo ", $config")"
    measure "$round" "$config" "$mix"
  done
done
[[ "$(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)" == "$COMMIT" ]] \
  || problem "the commit changed during the run ($COMMIT at the start): the table names the first"

# ---------------------------------------------------------------- tables
TABLE="$OUT/summary.md"
{
  echo "# Mixed workload$([[ $QUICK == 1 ]] && echo " (quick: a smoke test, not a measurement)"): measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  echo "- Code: commit $COMMIT${DIRTY:+ with uncommitted changes} ($HERE)."
  echo "- Cluster: \`./hedgerow local --leaves 4 --partitions 16 --replicas 2\`, Europarl; a fresh cluster per run, after /ready answered 200 and a ${WARMUP} closed loop at $CONNECTIONS with the run's mix."
  echo "- Request: the load generator's default query mix and the server's default request (stored fields, snippets, k=10), \`cache=false\`; plain: \`GET /search?q=\`; structured: \`--request-mix structured\`, the same queries as \`POST /search\` bodies (plain 20%, filtered 25%, sorted 20%, paged 15%, faceted 20%)."
  echo "- Capacity: complete answers/s of a closed loop at $CONNECTIONS connections for $DURATION after ${GEN_WARMUP_S}s of the generator's own warm-up; CPU from /proc over that window."
  echo "- Pause: docs/benchmarks/suite/pause.json (leaf 1 SIGSTOPped 150 ms every second), Poisson at half of the same round's capacity of the same mix; ${PAUSE_DURATION:-50,000 requests (at least 60 s)} measured."
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  echo "- Configurations: ${CONFIGS[*]}$(for c in "${CONFIGS[@]}"; do a="$(config_args "$c")"; [[ -z "$a" ]] || printf '; %s: `%s`' "$c" "$a"; done)."
  echo "- Each figure: the median of $ROUNDS round(s) [min-max], rounds interleaved (every configuration and mix in turn, the order reversed every other round)."
  echo "- Command: \`$COMMAND\`"
  echo
  python3 - "$RUNS_TSV" "${CONFIGS[*]}" "${MIXES[*]}" <<'PY'
import csv, statistics, sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
configs = sys.argv[2].split()
mixes = sys.argv[3].split()

def numbers(values):
    out = []
    for value in values:
        try:
            number = float(value)
        except ValueError:
            continue
        if number == number:  # not NaN
            out.append(number)
    return out

def cell(values, digits):
    found = numbers(values)
    if not found:
        return "–"
    fmt = "{:,.%df}" % digits
    text = fmt.format(statistics.median(found))
    if len(found) > 1:
        text += " [" + fmt.format(min(found)) + "-" + fmt.format(max(found)) + "]"
    return text

def median(config, mix, name):
    found = numbers(r[name] for r in rows if r["mix"] == mix and r["config"] == config)
    return statistics.median(found) if found else None

print("| mix | configuration | capacity: complete answers/s (closed, 64) | refused/s | CPU ms per answer (root + leaves) | root CPU ms per answer | pause: rate/s | p50 ms | p99 ms | p99.9 ms | extra sub-requests % | errors |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for mix in mixes:
  for config in configs:
    runs = [r for r in rows if r["mix"] == mix and r["config"] == config]
    if not runs:
        continue
    col = lambda name: [r[name] for r in runs]
    print(f"| {mix} | {config} | {cell(col('capacity_per_s'), 0)} | {cell(col('refused_per_s'), 1)} | {cell(col('cpu_ms_per_answer'), 2)} | "
          f"{cell(col('root_cpu_ms_per_answer'), 2)} | {cell(col('pause_rate_per_s'), 0)} | {cell(col('p50_ms'), 1)} | "
          f"{cell(col('p99_ms'), 1)} | {cell(col('p99_9_ms'), 1)} | {cell(col('extra_leaf_requests_pct'), 1)} | "
          f"{cell(col('pause_errors'), 0)} |")
def ratios(of, to):
    out = []
    for name, label in (("capacity_per_s", "capacity"), ("cpu_ms_per_answer", "CPU ms per answer"),
                        ("p50_ms", "pause p50"), ("p99_ms", "pause p99"), ("p99_9_ms", "pause p99.9")):
        base, other = to(name), of(name)
        if base and other is not None:
            out.append(f"{label} x{other / base:.2f}")
    return ", ".join(out) if out else "–"

print()
if "plain" in mixes and "structured" in mixes:
    for config in configs:
        where = "" if len(configs) == 1 else f", {config}"
        print(f"Structured / plain (medians{where}): "
              + ratios(lambda n: median(config, "structured", n), lambda n: median(config, "plain", n)) + ".")
        print()
for config in configs[1:]:
    for mix in mixes:
        print(f"{config} / {configs[0]}, {mix} mix (medians): "
              + ratios(lambda n: median(config, mix, n), lambda n: median(configs[0], mix, n)) + ".")
        print()
print("Runs: %d (every one in runs.tsv and runs.md)." % len(rows))
PY
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"
runs_markdown "$RUNS_TSV" "$OUT"
finish_report "$TABLE"
