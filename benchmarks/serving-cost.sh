#!/usr/bin/env bash
# The serving cost table (docs/benchmarks/serving-cost.md): what each mechanism costs per answer, this
# checkout against another, in interleaved rounds, with the in-process ceiling beside it.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ALL_CONFIGS=(defaults admission-off canaries-off lanes-off all-off batching-on inline-cheap access-log zk-none)
# The others run only when named with --configs: one setting away from the defaults, to judge it alone.
DEFAULT_CONFIGS=(defaults admission-off canaries-off lanes-off all-off)
CONNECTIONS=64

QUICK=0
ROUNDS=""
DURATION=""
WARMUP=""
CONFIG_LIST=""
CHECKOUT=""
PORT=8080
OUT_DIR=""
JFR=0
SKIP_CEILING=0

usage() {
  cat <<'USAGE'
Usage: benchmarks/serving-cost.sh [options]

What serving costs, per configuration, on ./hedgerow local --leaves 4 --partitions 16 --replicas 2
with the default request (stored fields and snippets, k=10, cache=false: the load generator's and
the server's defaults) and the load generator's default query mix. Configurations:

  defaults        the server's defaults
  admission-off   --admission off
  canaries-off    --canaries 0
  lanes-off       --leaf-arg=--slice=0s --leaf-arg=--expensive-cost=0 (no slicing, no expensive lane)
  all-off         all three
  batching-on     --leaf-batching on (one message per leaf per search; only with --configs)
  inline-cheap    --leaf-arg=--inline-cheap (a search known cheap runs on the leaf's event loop when
                  nothing waits, without a hop to a worker; only with --configs)
  access-log      the root's access log on (HEDGEROW_ACCESS_LOG=INFO: one line per answer, written
                  asynchronously to the cluster's log; only with --configs)
  zk-none         --zk none (no embedded ZooKeeper: the root keeps the partitions' state in its
                  memory, as local did before it started one by default; only with --configs)

For each round, for each configuration, for each build (this checkout, then --checkout's if given),
on a freshly started cluster that serves and whose /ready answers 200:
  warm-up     an unmeasured closed loop at 64 connections (--warmup long);
  closed      a closed loop at 64 connections (--duration long, after a short warm-up of the
              generator's own JVM): capacity = complete answers/s; refused/s = failed requests/s;
              the CPU time (utime + stime, /proc/PID/stat) of the root JVM and every leaf JVM (the
              cluster's process tree) over the measured window, per complete answer;
  open        an open loop (Poisson) at half of that capacity, as long: p50, p99, p99.9.
Once per round (with no cluster running), the in-process ceiling (ServingCeiling, this checkout):
  full        Hedgerow's PartitionSearcher over the 16 partitions in one JVM, the same request
              (title and body, top 10 of each partition merged, stored fields and snippets of the
              10 winners), as many threads as cores, closed loop: queries/s;
  raw         raw Lucene: body only, pre-parsed queries, top 10 per partition, no fetch.

The load generator always comes from this checkout. Only one benchmark runs at a time: the script
waits for /tmp/hedgerow-bench.lock (other benchmark scripts that take it wait for this one).

Writes <out>/table.md (each figure the median of the rounds [min-max]), runs.tsv and runs.md (every
run), the generator's results folders (runs/) and the clusters' logs.

Options:
  --checkout DIR      Also measure another checkout of Hedgerow (its ./hedgerow starts the cluster, on
                      the Europarl index in DIR/data, built there first if missing).
  --configs LIST      Configurations, comma-separated (default: all five).
  --rounds N          Rounds (default: 3; 1 with --quick).
  --duration D        Each measured phase (default: 30s; 10s with --quick).
  --warmup D          The unmeasured closed loop before them, and the ceiling's warm-up
                      (default: 20s; 5s with --quick).
  --quick             A smoke test: 1 round, 10 s phases, 5 s warm-up. Not a measurement.
  --jfr               In the first round's defaults run of each build, record a JFR profile of the
                      root and of one leaf during the closed loop; writes folded stacks, top-frame
                      tables and flame graphs (SVG) under <out>/profiles/.
  --no-ceiling        Skip the in-process ceiling.
  --port N            The root's HTTP port (default: 8080).
  --out DIR           Results folder (default: results/serving-cost-<date>-<time>).
  -h, --help          This help.

Environment: HEDGEROW_DATA as for ./hedgerow (the Europarl index and the query set).
Exit status: 0 when every run measured cleanly; 1 when anything went wrong (the table is still
written, with the problems listed under it).
USAGE
}

# shellcheck source=lib.sh
source "$HERE/benchmarks/lib.sh"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rounds) require_value "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --duration) require_value "$1" "${2:-}"; DURATION="$2"; shift 2 ;;
    --warmup) require_value "$1" "${2:-}"; WARMUP="$2"; shift 2 ;;
    --configs) require_value "$1" "${2:-}"; CONFIG_LIST="$2"; shift 2 ;;
    --checkout) require_value "$1" "${2:-}"; CHECKOUT="$2"; shift 2 ;;
    --port) require_value "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --out) require_value "$1" "${2:-}"; OUT_DIR="$2"; shift 2 ;;
    --jfr) JFR=1; shift ;;
    --no-ceiling) SKIP_CEILING=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

ROUNDS="${ROUNDS:-$([[ $QUICK == 1 ]] && echo 1 || echo 3)}"
DURATION="${DURATION:-$([[ $QUICK == 1 ]] && echo 10s || echo 30s)}"
WARMUP="${WARMUP:-$([[ $QUICK == 1 ]] && echo 5s || echo 20s)}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' (expected: >= 1)"
[[ "$DURATION" =~ ^[1-9][0-9]*s$ ]] || die "--duration: '$DURATION' (expected: whole seconds, e.g. 30s)"
[[ "$WARMUP" =~ ^[1-9][0-9]*s$ ]] || die "--warmup: '$WARMUP' (expected: whole seconds, e.g. 20s)"
DURATION_S="${DURATION%s}"
WARMUP_S="${WARMUP%s}"
# The generator's JVM is new for every run: it warms its own JIT this long before measuring.
GEN_WARMUP_S=$([[ $QUICK == 1 ]] && echo 2 || echo 5)
require_port_free "$PORT"
CONFIGS=("${DEFAULT_CONFIGS[@]}")
if [[ -n "$CONFIG_LIST" ]]; then
  IFS=',' read -r -a CONFIGS <<<"$CONFIG_LIST"
  for name in "${CONFIGS[@]}"; do
    [[ " ${ALL_CONFIGS[*]} " == *" $name "* ]] || die "--configs: no configuration '$name' (expected some of: ${ALL_CONFIGS[*]})"
  done
fi
if [[ -n "$CHECKOUT" ]]; then
  [[ -x "$CHECKOUT/hedgerow" ]] || die "--checkout: no ./hedgerow in '$CHECKOUT'"
  CHECKOUT="$(cd "$CHECKOUT" && pwd)"
  [[ "$CHECKOUT" != "$HERE" ]] || die "--checkout: '$CHECKOUT' is this checkout (expected: another one)"
fi

config_args() { # config: the ./hedgerow local flags of a configuration
  case "$1" in
    defaults) ;;
    admission-off) echo --admission off ;;
    batching-on) echo --leaf-batching on ;;
    inline-cheap) echo --leaf-arg=--inline-cheap ;;
    canaries-off) echo --canaries 0 ;;
    lanes-off) echo --leaf-arg=--slice=0s --leaf-arg=--expensive-cost=0 ;;
    zk-none) echo --zk none ;;
    all-off) echo --admission off --canaries 0 --leaf-arg=--slice=0s --leaf-arg=--expensive-cost=0 ;;
  esac
}

# A JDK 21+ (it has jcmd and jfr), found as ./hedgerow finds one.
# shellcheck source=root-server/src/dist/bin/java-runtime.sh
source "$HERE/root-server/src/dist/bin/java-runtime.sh"

OUT="${OUT_DIR:-$HERE/results/serving-cost-$(date +%Y%m%d-%H%M%S)}"
URL="http://127.0.0.1:$PORT"
bench_init
mkdir -p "$OUT/runs" "$OUT/logs"
COMMAND="benchmarks/serving-cost.sh"
[[ $QUICK == 0 ]] || COMMAND+=" --quick"
[[ -z "$CONFIG_LIST" ]] || COMMAND+=" --configs $CONFIG_LIST"
[[ $QUICK == 1 || "$ROUNDS" == 3 ]] || COMMAND+=" --rounds $ROUNDS"
[[ $QUICK == 1 || "$DURATION" == 30s ]] || COMMAND+=" --duration $DURATION"
[[ $QUICK == 1 || "$WARMUP" == 20s ]] || COMMAND+=" --warmup $WARMUP"
[[ -z "$CHECKOUT" ]] || COMMAND+=" --checkout $CHECKOUT"
[[ $JFR == 0 ]] || COMMAND+=" --jfr"
[[ $SKIP_CEILING == 0 ]] || COMMAND+=" --no-ceiling"

# One benchmark at a time: numbers taken while another loads the same cores mean nothing.
exec 9>/tmp/hedgerow-bench.lock
if ! flock -n 9; then
  say "Another benchmark holds /tmp/hedgerow-bench.lock: waiting for it to finish..."
  flock 9
fi

JDK="$(find_java_home javac)" || die "no JDK 21+ found (set JAVA_HOME)"
commit_of() { # dir: short commit, with a + when the work tree has uncommitted changes
  local commit dirty
  commit="$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  dirty="$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)"
  echo "$commit${dirty:++}"
}
BUILDS=(this)
declare -A LAUNCHER_OF COMMIT_OF
LAUNCHER_OF[this]="$HEDGEROW"
COMMIT_OF[this]="$(commit_of "$HERE")"
if [[ -n "$CHECKOUT" ]]; then
  BUILDS+=(other)
  LAUNCHER_OF[other]="$CHECKOUT/hedgerow"
  COMMIT_OF[other]="$(commit_of "$CHECKOUT")"
  say "Building $CHECKOUT (commit ${COMMIT_OF[other]}) in the foreground..."
  "$CHECKOUT/hedgerow" index --help >/dev/null
fi
# This checkout's build again, in the foreground: the sources may have changed while the lock was
# waited for, and the jars must be those of the commit named above. From here no ./hedgerow command
# may build: a rebuild mid-run (a source edited or merged meanwhile) would load the machine during a
# measurement and have later rounds measure other code. (An older --checkout's launcher ignores this.)
"$HEDGEROW" loadgen --version >/dev/null
export HEDGEROW_BUILD=never
jars_of() { # dir: the modification times of its root and loadgen jars, which a rebuild by anyone changes
  stat -c %Y "$1/root-server/target/hedgerow.jar" "$1/loadgen/target/hedgerow-loadgen.jar" 2>/dev/null | paste -sd,
}
declare -A JARS_OF=([this]="$(jars_of "$HERE")")
[[ -z "$CHECKOUT" ]] || JARS_OF[other]="$(jars_of "$CHECKOUT")"
say "Serving cost: ${CONFIGS[*]} x ${BUILDS[*]}, $ROUNDS round(s), phases of $DURATION; results in $OUT"

# A configuration a build does not know (an older checkout) is skipped with a problem, not a failure.
declare -A SUPPORTED
for build in "${BUILDS[@]}"; do
  local_help="$("${LAUNCHER_OF[$build]}" local --help 2>&1 || true)"
  leaf_help="$("${LAUNCHER_OF[$build]}" leaf --help 2>&1 || true)"
  for config in "${CONFIGS[@]}"; do
    missing=""
    for flag in $(config_args "$config"); do
      case "$flag" in
        --leaf-arg=*) flag="${flag#--leaf-arg=}"; name="${flag%%=*}"
          # A flag with a value shows as NAME=, a boolean one as NAME followed by a space or comma.
          [[ "$local_help" == *"--leaf-arg="* && ( "$leaf_help" == *"$name="* || "$leaf_help" == *"$name "* \
            || "$leaf_help" == *"$name,"* ) ]] || missing+=" $flag" ;;
        --*) [[ "$local_help" == *"$flag="* ]] || missing+=" $flag" ;;
      esac
    done
    if [[ -z "$missing" ]]; then
      SUPPORTED[$build/$config]=1
    else
      problem "$config is not run on $build (${COMMIT_OF[$build]}): it has no$missing"
    fi
  done
done

# The ceiling runs from a copy of this checkout's benchmarks jar: a rebuild during the run must not change it.
CEILING_JAR=""
if [[ $SKIP_CEILING == 0 ]]; then
  [[ -f "$HERE/benchmarks/target/hedgerow-benchmarks.jar" ]] \
    || die "no benchmarks/target/hedgerow-benchmarks.jar (./hedgerow builds it; or run with --no-ceiling)"
  CEILING_JAR="$RUN_DIR/hedgerow-benchmarks.jar"
  mkdir -p "$RUN_DIR"
  cp "$HERE/benchmarks/target/hedgerow-benchmarks.jar" "$CEILING_JAR"
fi
JAVA_FLAGS=(--add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC -Xmx2g)
"$JDK/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1 && JAVA_FLAGS+=(--sun-misc-unsafe-memory-access=allow)

# ---------------------------------------------------------------- measuring helpers
leaf_pid() { # the first leaf JVM of the cluster (a descendant whose command line runs 'leaf')
  local pid
  for pid in $(descendants "$CLUSTER_PID"); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE '(^| )leaf( |$)'; then
      echo "$pid"
      return 0
    fi
  done
  descendants "$CLUSTER_PID" | head -n 1
}

# Called by closed_loop_capacity as its measured window starts (round and config are measure()'s).
on_measured_window() {
  if [[ $JFR == 1 && $round == 1 && $config == defaults ]]; then
    jfr_start "$CLOSED_ROOT_PID" "root-$build"
    jfr_start "$(leaf_pid)" "leaf-$build"
  fi
}

jfr_start() { # pid name: a JFR recording of the measured window, into $OUT/profiles/NAME.jfr
  mkdir -p "$OUT/profiles"
  "$JDK/bin/jcmd" "$1" JFR.start name=serving-cost settings=profile "duration=${DURATION_S}s" \
    "filename=$OUT/profiles/$2.jfr" >"$OUT/logs/jfr-$2.log" 2>&1 \
    || problem "JFR did not start on $2 (pid $1): $(tail -n 1 "$OUT/logs/jfr-$2.log")"
}

RUNS_TSV="$OUT/runs.tsv"
printf 'round\tbuild\tcommit\tconfig\tcapacity_per_s\trefused_per_s\tcpu_ms_per_answer\troot_cpu_ms_per_answer\tleaf_cpu_ms_per_answer\topen_rate_per_s\tp50_ms\tp99_ms\tp99_9_ms\topen_refused_per_s\tclosed_folder\topen_folder\n' >"$RUNS_TSV"

# measure round build config: one cluster, warm-up, closed loop with CPU, open loop at half of it.
measure() {
  local round="$1" build="$2" config="$3" name="$2-$3-$1"
  local dir="$HERE"
  [[ $build == this ]] || dir="$CHECKOUT"
  if [[ "$(jars_of "$dir")" != "${JARS_OF[$build]}" ]]; then
    problem "$name: $build's jars were rebuilt during the run (in $dir): this run and the later ones measure" \
      "another build than the first"
    JARS_OF[$build]="$(jars_of "$dir")" # said once per rebuild
  fi
  HEDGEROW_CLUSTER="${LAUNCHER_OF[$build]}" # cluster_start and cluster_stop use it
  local access_log=OFF
  [[ $config != access-log ]] || access_log=INFO
  # shellcheck disable=SC2046
  HEDGEROW_ACCESS_LOG="$access_log" cluster_start "$name" "$PORT" --leaves 4 --partitions 16 --replicas 2 \
    $(config_args "$config")
  await_ready "$name" || { cluster_stop; return 0; }
  local root="$CLUSTER_PID" leaves
  leaves="$(descendants "$root" | paste -sd' ')"
  say "  root pid $root, leaf processes: $leaves"

  say "  warm-up: closed loop at $CONNECTIONS for $WARMUP (unmeasured)"
  loadgen_run "$OUT/logs/warmup-$name.log" --target "$URL" --closed-loop "$CONNECTIONS" --duration "$WARMUP" \
    --warmup 0s --label "warmup-$name" --results "$OUT/warmup" >/dev/null 2>&1 \
    || { problem "$name: the warm-up failed (see $OUT/logs/warmup-$name.log)"; cluster_stop; return 0; }

  # (a) Closed loop, with the cluster's CPU over its measured window (lib.sh).
  closed_loop_capacity "$name" "$CONNECTIONS" "$DURATION_S" "$GEN_WARMUP_S" "$root" "$leaves" \
    || { cluster_stop; return 0; }
  local closed="$CLOSED_FOLDER" capacity="$CAPACITY_PER_S" refused="$REFUSED_PER_S" cpu="$CPU_MS" \
    root_cpu="$ROOT_CPU_MS" leaf_cpu="$LEAF_CPU_MS" errors seconds
  say "  closed: $capacity complete answers/s, $refused refused/s, $cpu CPU ms per answer (root $root_cpu)"

  # (b) Open loop at half the capacity just measured.
  local rate open="" p50="" p99="" p999="" open_refused=""
  rate="$(awk -v c="$capacity" 'BEGIN { printf "%d", c / 2 + 0.5 }')"
  if [[ "$rate" -ge 1 ]]; then
    say "  open loop at $rate req/s for $DURATION"
    if open="$(loadgen_run "$OUT/logs/open-$name.log" --target "$URL" --rate "$rate" --duration "$DURATION" \
        --warmup "${GEN_WARMUP_S}s" --label "open-$name" --results "$OUT/runs" 2>/dev/null)" && [[ -n "$open" ]]; then
      phase_problems "$open"
      read -r p50 p99 p999 errors seconds < <(lg_read "$open" phases.0.latency_ms.answered.p50 \
        phases.0.latency_ms.answered.p99 phases.0.latency_ms.answered.p99_9 phases.0.errors phases.0.duration_s | paste -sd' ')
      open_refused="$(awk -v e="$errors" -v s="$seconds" 'BEGIN { printf "%.1f", (s > 0 ? e / s : 0) }')"
      say "  open: p50 $p50 ms, p99 $p99 ms, p99.9 $p999 ms, $open_refused refused/s"
    else
      problem "$name: the open loop did not run (see $OUT/logs/open-$name.log)"
    fi
  else
    problem "$name: no open loop (capacity $capacity answers/s)"
  fi
  cluster_stop
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$build" "${COMMIT_OF[$build]}" \
    "$config" "$capacity" "$refused" "$cpu" "$root_cpu" "$leaf_cpu" "$rate" "${p50:-}" "${p99:-}" "${p999:-}" \
    "${open_refused:-}" "$closed" "${open:-}" >>"$RUNS_TSV"
}

# ceiling round mode: the in-process ceiling, queries/s into runs.tsv as build "ceiling", config MODE.
ceiling() {
  local round="$1" mode="$2" log="$OUT/logs/ceiling-$2-$1.log" rate
  say "In-process ceiling ($mode): $WARMUP warm-up, $DURATION measured, $(nproc) threads"
  if "$JDK/bin/java" "${JAVA_FLAGS[@]}" -cp "$CEILING_JAR" io.hedgerow.benchmarks.ServingCeiling --mode "$mode" \
      --data "$HEDGEROW_DATA" --threads "$(nproc)" --warmup "$WARMUP" --duration "$DURATION" >"$log" 2>&1; then
    rate="$(sed -n 's/^queries_per_s=\([0-9.]*\) .*/\1/p' "$log" | tail -n 1)"
    local bad
    bad="$(sed -n 's/^queries_per_s=.* bad=\([0-9]*\) .*/\1/p' "$log" | tail -n 1)"
    [[ "${bad:-0}" == 0 ]] || problem "ceiling $mode (round $round): $bad queries refused as bad (see $log)"
    say "  ceiling $mode: $rate queries/s"
    printf '%s\tceiling\t%s\t%s\t%s\t\t\t\t\t\t\t\t\t\t%s\t\n' "$round" "${COMMIT_OF[this]}" "$mode" "$rate" "$log" >>"$RUNS_TSV"
  else
    problem "ceiling $mode (round $round) failed: $(grep -E '^error|Exception' "$log" | head -n 1) (see $log)"
  fi
}

# ---------------------------------------------------------------- rounds
for round in $(seq 1 "$ROUNDS"); do
  for config in "${CONFIGS[@]}"; do
    for build in "${BUILDS[@]}"; do
      [[ -n "${SUPPORTED[$build/$config]:-}" ]] || continue
      say "Round $round/$ROUNDS: $config on $build (${COMMIT_OF[$build]})"
      measure "$round" "$build" "$config"
    done
  done
  if [[ $SKIP_CEILING == 0 ]]; then
    ceiling "$round" full
    ceiling "$round" raw
  fi
done

for build in "${BUILDS[@]}"; do
  dir="$HERE"
  [[ $build == this ]] || dir="$CHECKOUT"
  [[ "$(commit_of "$dir")" == "${COMMIT_OF[$build]}" ]] || problem "$build's commit changed during the run" \
    "(${COMMIT_OF[$build]} at the start, $(commit_of "$dir") now): the table names the first"
  [[ "$(jars_of "$dir")" == "${JARS_OF[$build]}" ]] || problem "$build's jars were rebuilt during its last run (in $dir)"
done

# ---------------------------------------------------------------- profiles
if [[ $JFR == 1 ]]; then
  for recording in "$OUT"/profiles/*.jfr; do
    [[ -f "$recording" ]] || { problem "--jfr: no recording was written"; break; }
    base="${recording%.jfr}"
    if "$JDK/bin/jfr" print --events jdk.ExecutionSample --stack-depth 64 "$recording" >"$base.samples.txt" 2>"$OUT/logs/jfr-print.log" \
        && python3 "$HERE/benchmarks/jfr_flame.py" "$base.samples.txt" "$base" "$(basename "$base") ($COMMAND)" \
          >>"$OUT/logs/jfr-flame.log" 2>&1; then
      rm -f "$base.samples.txt"
      say "Profile $(basename "$base"): $base.svg, $base.folded, $base.top.md"
    else
      problem "--jfr: $recording could not be turned into a flame graph (see $OUT/logs/jfr-print.log, jfr-flame.log)"
    fi
  done
fi

# ---------------------------------------------------------------- tables
TABLE="$OUT/table.md"
{
  echo "# Serving cost$([[ $QUICK == 1 ]] && echo " (quick: a smoke test, not a measurement)"): measured $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(machine_line); the root, 4 leaf JVMs and the generator all on it."
  echo "- This checkout: commit ${COMMIT_OF[this]} ($HERE); the generator and the ceiling come from it.${CHECKOUT:+ Other: commit ${COMMIT_OF[other]} ($CHECKOUT).} (+: uncommitted changes.)"
  echo "- Cluster: \`./hedgerow local --leaves 4 --partitions 16 --replicas 2\` and the configuration's flags, Europarl; a fresh cluster per run, after /ready answered 200 and a ${WARMUP} closed loop at $CONNECTIONS."
  echo "- Request: the load generator's default mix, the server's default request (stored fields, snippets, k=10), \`cache=false\`."
  echo "- Each figure: the median of $ROUNDS round(s) [min-max], rounds interleaved (configurations and builds in turn); measured phases of $DURATION after ${GEN_WARMUP_S}s of the generator's own warm-up."
  echo "- Command: \`$COMMAND\`"
  echo
  python3 - "$RUNS_TSV" <<'PY'
import csv, statistics, sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))

def cell(values, digits):
    numbers = []
    for value in values:
        try:
            number = float(value)
        except ValueError:
            continue
        if number == number:  # not NaN
            numbers.append(number)
    if not numbers:
        return "–"
    fmt = "{:,.%df}" % digits
    text = fmt.format(statistics.median(numbers))
    if len(numbers) > 1:
        text += " [" + fmt.format(min(numbers)) + "-" + fmt.format(max(numbers)) + "]"
    return text

print("| build | configuration | capacity: complete answers/s (closed, 64) | refused/s | CPU ms per answer (root + leaves) | root CPU ms per answer | open loop rate/s | p50 ms | p99 ms | p99.9 ms | open loop refused/s |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
seen = []
for row in rows:
    key = (row["build"], row["commit"], row["config"])
    if key not in seen:
        seen.append(key)
for build, commit, config in seen:
    runs = [r for r in rows if (r["build"], r["commit"], r["config"]) == (build, commit, config)]
    col = lambda name: [r[name] for r in runs]
    if build == "ceiling":
        label = "in-process ceiling: the default request" if config == "full" else "in-process ceiling: raw Lucene (body, pre-parsed, no fetch)"
        print(f"| ceiling ({commit}) | {label} | {cell(col('capacity_per_s'), 0)} queries/s | – | – | – | – | – | – | – | – |")
        continue
    print(f"| {build} ({commit}) | {config} | {cell(col('capacity_per_s'), 0)} | {cell(col('refused_per_s'), 1)} | "
          f"{cell(col('cpu_ms_per_answer'), 2)} | {cell(col('root_cpu_ms_per_answer'), 2)} | {cell(col('open_rate_per_s'), 0)} | "
          f"{cell(col('p50_ms'), 1)} | {cell(col('p99_ms'), 1)} | {cell(col('p99_9_ms'), 1)} | {cell(col('open_refused_per_s'), 1)} |")
print()
print("Runs: %d (every one in runs.tsv and runs.md)." % len(rows))
PY
  if [[ $JFR == 1 ]]; then
    echo
    echo "Profiles (first round, defaults, closed loop): profiles/<root|leaf>-<build>.svg (flame graph), .folded (folded stacks), .top.md (top frames)."
  fi
  if [[ -s "$PROBLEMS" ]]; then
    echo
    echo "Problems:"
    sed 's/^/- /' "$PROBLEMS"
  fi
} >"$TABLE"
runs_markdown "$RUNS_TSV" "$OUT"
finish_report "$TABLE"
