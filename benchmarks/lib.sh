# Shared helpers of the benchmark scripts: sourced, not run. A script sets HERE (the project) and
# OUT (its results folder) and calls bench_init before using the rest. Every figure a script needs
# comes from a run's summary.json through `loadgen read`, never from the printed table.
#
#   bench_init                    checks the project, makes $OUT, $RUN_DIR, $PROBLEMS; traps EXIT
#   say TEXT                      a progress line with the elapsed time
#   problem TEXT                  records a problem (listed under the script's tables; exit 1 at the end)
#   die TEXT                      fails the script
#   require_value OPTION VALUE    for option parsing
#   require_duration NAME VALUE   a duration like 150ms, 10s, 2m
#   require_port_free PORT
#   cluster_start NAME PORT ARGS...   starts ./hedgerow local with ARGS (of $HEDGEROW_CLUSTER if set, on the
#                                 Europarl index in that checkout's data/), waits until it serves
#   cluster_stop                  stops it (also on exit)
#   loadgen_run LOG ARGS...       runs ./hedgerow loadgen ARGS, tee'd to LOG; prints its results folder
#   lg_read FOLDER PATH...        values of FOLDER/summary.json (see ./hedgerow loadgen read --help)
#   phase_line FOLDER PHASE       "achieved R req/s, p99 P ms, N errors" of one phase (name or index)
#   phase_problems FOLDER         records a problem for each phase of FOLDER that had errors or is not a
#                                 clean measurement (its error_rate, its problems: lag, faults, notes)
#   warm_up LABEL RATE DURATION ARGS...  unmeasured open-loop load on $URL with ARGS, quietly (log:
#                                 $OUT/warmup-LABEL.log); says what it achieved; dies when it fails
#   loadgen_compare LOG ARGS...   runs ./hedgerow loadgen compare ARGS, its output in LOG; prints its folder
#   markdown_table FOLDER         the Markdown table of a compare folder (compare.md) without its list of
#                                 problems (phase_problems puts those in the script's own list)
#   machine_line                  one line describing the machine, for the docs
#   descendants PID               every process below PID, depth first
#   cpu_ticks PID...              utime + stime of the processes, summed (/proc/PID/stat)
#   await_ready NAME              waits until $URL/ready answers 200 (a problem after 5 minutes)
#   closed_loop_capacity ...      issue 30's capacity: a closed loop with the cluster's CPU per answer

HEDGEROW="$HERE/hedgerow"
export HEDGEROW_DATA="${HEDGEROW_DATA:-$HERE/data}"
BENCH_STARTED=$SECONDS
CLUSTER_PID=""
CLUSTER_LOG=""

die() {
  echo "error: $*" >&2
  exit 1
}

say() {
  printf '[%3d:%02d] %s\n' $(((SECONDS - BENCH_STARTED) / 60)) $(((SECONDS - BENCH_STARTED) % 60)) "$*"
}

problem() {
  echo "$*" >>"$PROBLEMS"
  echo "PROBLEM: $*" >&2
}

require_value() { # option value
  [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || die "$1 needs a value (see --help)"
}

require_duration() { # name value
  [[ "$2" =~ ^[0-9]+(\.[0-9]+)?(ms|s|m|h)$ ]] || die "$1: '$2' (expected a duration, e.g. 150ms, 10s, 2m)"
}

require_capacity() { # value
  [[ "$1" =~ ^[0-9]+$ ]] || die "--capacity: '$1' (expected: req/s at p99 <= 20 ms, from loadgen --find-capacity)"
}

require_port_free() { # port
  [[ "$1" =~ ^[0-9]+$ && "$1" -ge 1 && "$1" -le 65535 ]] || die "--port: '$1' (expected: 1..65535)"
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    die "port $1 is in use: is a cluster running already? Stop it or pick --port"
  fi
}

bench_init() {
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  RUN_DIR="$OUT/run"
  PROBLEMS="$OUT/problems.txt"
  : >"$PROBLEMS"
  trap cluster_stop EXIT
  trap 'echo "Interrupted." >&2; exit 130' INT TERM
  # Build once, in the foreground, so no cluster or generator builds in the background.
  "$HEDGEROW" loadgen --version >/dev/null
}

# cluster_start NAME PORT ARGS...: ./hedgerow local with ARGS on PORT, pid files in $RUN_DIR, log in
# $OUT/cluster-NAME.log; returns once it serves.
cluster_start() {
  local name="$1" port="$2"
  shift 2
  CLUSTER_LOG="$OUT/cluster-$name.log"
  say "Starting ./hedgerow local --port $port $* (log: $CLUSTER_LOG)"
  # Another checkout (--checkout) serves Europarl from its own data folder: index formats differ
  # between versions, and a build refuses (or rebuilds) another's index. Same corpus, same documents.
  local data="$HEDGEROW_DATA"
  if [[ -n "${HEDGEROW_CLUSTER:-}" && "$HEDGEROW_CLUSTER" != "$HEDGEROW" ]]; then
    data="$(dirname "$HEDGEROW_CLUSTER")/data"
  fi
  # A fresh cluster per run: local's embedded ZooKeeper (its default since issue 31) keeps the
  # partitions' state in $RUN_DIR/zk, with the leaves' ports, for the next local on that run directory;
  # a run of another shape, index or build must not start from the last run's state. (No flag is
  # passed for it: an older checkout's local, --checkout, knows no --zk none.)
  rm -rf "$RUN_DIR/zk" "$RUN_DIR/leaf-ports" "$RUN_DIR/zk-port"
  HEDGEROW_DATA="$data" "${HEDGEROW_CLUSTER:-$HEDGEROW}" local --port "$port" --run-dir "$RUN_DIR" "$@" \
    >"$CLUSTER_LOG" 2>&1 &
  CLUSTER_PID=$!
  local waited=0
  until grep -qs '^Serving on ' "$CLUSTER_LOG"; do
    if ! kill -0 "$CLUSTER_PID" 2>/dev/null; then
      tail -n 20 "$CLUSTER_LOG" >&2
      CLUSTER_PID=""
      die "the cluster did not start (its log above, all of it in $CLUSTER_LOG)"
    fi
    [[ $waited -lt 900 ]] || die "the cluster was not serving after 15 minutes (see $CLUSTER_LOG)"
    if [[ $waited -gt 0 && $((waited % 30)) -eq 0 ]]; then
      say "  still starting: $(tail -n 1 "$CLUSTER_LOG")"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  say "Cluster $name serving on http://127.0.0.1:$port (pid $CLUSTER_PID)"
}

cluster_stop() {
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
      # The root could not stop its leaves: stop them by their pid files (ours only: --run-dir).
      "${HEDGEROW_CLUSTER:-$HEDGEROW}" local stop --run-dir "$RUN_DIR" || true
    fi
  fi
  CLUSTER_PID=""
}

# loadgen_run LOG ARGS...: runs the load generator, its output tee'd to LOG; prints the results
# folder it wrote. Returns non-zero (and records a problem) when it failed; its warnings become problems.
loadgen_run() {
  local log="$1"
  shift
  # tee ignores Ctrl-C, so what the generator prints while it undoes its faults still reaches the log.
  if ! "$HEDGEROW" loadgen "$@" 2>&1 | (trap '' INT TERM; exec tee "$log") >&2; then
    problem "$(basename "$log" .log) did not run: $(grep -E '^error:' "$log" | tail -n 1 || true) (see $log)"
    return 1
  fi
  local warning
  while IFS= read -r warning; do
    problem "$(basename "$log" .log): ${warning#warning: }"
  done < <(grep -E '^warning:' "$log" || true)
  sed -n 's/^Results: \(.*\) (report\.txt.*/\1/p' "$log" | tail -n 1
}

# lg_read FOLDER PATH...: one line per path from FOLDER/summary.json. Exit 2 when a path names nothing.
lg_read() {
  # Every JVM of the launcher warns that it uses the vector incubator module: noise, once per value read.
  "$HEDGEROW" loadgen read "$@" 2> >(grep -v '^WARNING: Using incubator modules' >&2)
}

# phase_line FOLDER PHASE: a phase's throughput, p99 and errors in one line, for progress lines.
phase_line() {
  local values achieved p99 errors
  values="$(lg_read "$1" "phases.$2.achieved_rate" "phases.$2.latency_ms.answered.p99" "phases.$2.errors" | paste -sd' ')" \
    || { echo "no summary in $1"; return 0; }
  read -r achieved p99 errors <<<"$values"
  printf 'achieved %.0f req/s, p99 %s ms, %s errors\n' "$achieved" "$p99" "$errors"
}

# phase_problems FOLDER: a problem "LABEL / PHASE: ..." for each of the run's phases that has errors (any:
# the load generator flags only more than 1%) and for each item of a phase's problems.
phase_problems() {
  local folder="$1" label values name rate flagged reasons problems text i=0 j status
  label="$(lg_read "$folder" label)" || { problem "$folder: no summary.json to check"; return 0; }
  while true; do
    status=0
    values="$(lg_read "$folder" "phases.$i.name" "phases.$i.error_rate" "phases.$i.error_flagged" \
      "phases.$i.error_reasons" "phases.$i.problems" 2>/dev/null)" || status=$?
    [[ $status -eq 0 ]] || break
    { read -r name; read -r rate; read -r flagged; read -r reasons; read -r problems; } <<<"$values"
    if [[ "$flagged" != true ]] && awk -v r="$rate" 'BEGIN { exit !(r > 0) }'; then
      problem "$label / $name: $(awk -v r="$rate" 'BEGIN { printf "%.2f", r * 100 }')% of requests failed (\`$reasons\`)"
    fi
    if [[ "$problems" != "[]" ]]; then
      j=0
      while text="$(lg_read "$folder" "phases.$i.problems.$j" 2>/dev/null)"; do
        problem "$label / $name: $text"
        j=$((j + 1))
      done
    fi
    i=$((i + 1))
  done
  [[ $status -eq 2 ]] || problem "$folder: its summary.json could not be read (loadgen read exit $status)"
  [[ $i -gt 0 ]] || problem "$label: no phase in $folder/summary.json"
}

# warm_up LABEL RATE DURATION ARGS...: a fresh cluster's JIT needs load before anything is measured.
# Needs URL. Its output goes to $OUT/warmup-LABEL.log only (its results under $OUT/warmup).
warm_up() {
  local label="$1" rate="$2" duration="$3" log="$OUT/warmup-$1.log" folder=""
  shift 3
  folder="$(loadgen_run "$log" --target "$URL" --rate "$rate" --duration "$duration" --warmup 0s \
    --label "warmup-$label" --results "$OUT/warmup" "$@" 2>/dev/null)" || true
  [[ -n "$folder" ]] || { tail -n 20 "$log" >&2; die "the warm-up failed (see $log)"; }
  say "  warm-up $label: $(phase_line "$folder" 0)"
}

# loadgen_compare LOG ARGS...: ./hedgerow loadgen compare ARGS, output in LOG; prints the comparison's folder.
loadgen_compare() {
  local log="$1"
  shift
  "$HEDGEROW" loadgen compare "$@" >"$log" 2>&1 || { cat "$log" >&2; return 1; }
  sed -n 's/^Comparison: \(.*\) (compare\.txt.*/\1/p' "$log" | tail -n 1
}

# markdown_table FOLDER: FOLDER/compare.md up to its "Problems:" list, without the blank lines before it.
markdown_table() {
  awk '/^Problems:$/ { exit } /^$/ { blank++; next } { for (; blank > 0; blank--) print ""; print }' "$1/compare.md"
}

# runs_markdown TSV OUT: TSV as a markdown table into OUT/runs.md, folders shown relative to OUT.
runs_markdown() {
  python3 - "$1" "$2/" >"$2/runs.md" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
print("# Every run (folders relative to this one)\n")
print("| " + " | ".join(rows[0]) + " |")
print("|" + " --- |" * len(rows[0]))
for row in rows[1:]:
    print("| " + " | ".join((value or "–").replace(sys.argv[2], "") for value in row) + " |")
PY
}

# finish_report TABLE: prints TABLE; exits 1 when anything was a problem ($PROBLEMS), else returns.
finish_report() {
  echo
  cat "$1"
  echo
  say "Done. Table: $1"
  if [[ -s "$PROBLEMS" ]]; then
    echo "$(wc -l <"$PROBLEMS") problem(s), listed under the table." >&2
    exit 1
  fi
}

machine_line() {
  local cpu memory os
  cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
  memory="$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
  os="$(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release 2>/dev/null)"
  echo "$(nproc) cores${cpu:+ ($cpu)}${memory:+, $memory}${os:+, $os}"
}

descendants() { # pid: every process below it, depth first
  local child
  for child in $(pgrep -P "$1" 2>/dev/null || true); do
    echo "$child"
    descendants "$child"
  done
}

cpu_ticks() { # pid...: utime + stime of each, summed (a process that is gone counts 0)
  local pid total=0 ticks
  for pid in "$@"; do
    # Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    ticks="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }')" || ticks=0
    total=$((total + ${ticks:-0}))
  done
  echo "$total"
}

await_ready() { # the root's /ready answers 200
  local waited=0
  until [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/ready" 2>/dev/null)" == 200 ]]; do
    [[ $waited -lt 300 ]] || { problem "$1: /ready did not answer 200 within 5 minutes"; return 1; }
    sleep 1
    waited=$((waited + 1))
  done
  say "  /ready answers 200 after ${waited}s"
}

# closed_loop_capacity NAME CONNECTIONS DURATION_S GEN_WARMUP_S ROOT_PID "LEAF_PIDS" [LOADGEN_ARGS...]: issue 30's
# capacity. A closed loop at CONNECTIONS on $URL for DURATION_S, after GEN_WARMUP_S of the generator's
# own warm-up (log $OUT/logs/closed-NAME.log, results under $OUT/runs), with the CPU time of the root
# and the leaves read over the measured window only: from the generator's warm-up's end (its "Loading"
# line, then GEN_WARMUP_S) for DURATION_S, divided by the phase's rate of complete answers times the
# window's length. Calls on_measured_window, when the caller defines it, as the window starts.
# Sets CLOSED_FOLDER, CAPACITY_PER_S (complete answers/s), REFUSED_PER_S, CPU_MS, ROOT_CPU_MS and
# LEAF_CPU_MS (per answer); returns 1 (with a problem) when the loop did not run.
closed_loop_capacity() {
  local name="$1" connections="$2" duration_s="$3" gen_warmup_s="$4" root="$5" leaves="$6"
  shift 6
  CLOSED_FOLDER="" CAPACITY_PER_S="" REFUSED_PER_S="" CPU_MS="" ROOT_CPU_MS="" LEAF_CPU_MS=""
  # shellcheck disable=SC2034 # read by the caller (its on_measured_window)
  CLOSED_ROOT_PID="$root"
  say "  closed loop at $connections for ${duration_s}s${*:+ ($*)}"
  local log="$OUT/logs/closed-$name.log" folder_file="$RUN_DIR/closed.folder"
  mkdir -p "$OUT/logs" "$RUN_DIR"
  : >"$folder_file"
  : >"$log"
  loadgen_run "$log" --target "$URL" --closed-loop "$connections" --duration "${duration_s}s" --warmup "${gen_warmup_s}s" \
    --label "closed-$name" --results "$OUT/runs" "$@" >"$folder_file" 2>/dev/null &
  local generator=$! waited=0
  until grep -qs '^Loading ' "$log"; do
    kill -0 "$generator" 2>/dev/null || break
    [[ $waited -lt 1200 ]] || break
    sleep 0.05
    waited=$((waited + 1))
  done
  sleep "$gen_warmup_s"
  # shellcheck disable=SC2206
  local pids=("$root" $leaves) t0 t1 root0 root1 all0 all1
  t0="$(date +%s.%N)"; root0="$(cpu_ticks "$root")"; all0="$(cpu_ticks "${pids[@]}")"
  if declare -F on_measured_window >/dev/null; then
    on_measured_window
  fi
  sleep "$duration_s"
  t1="$(date +%s.%N)"; root1="$(cpu_ticks "$root")"; all1="$(cpu_ticks "${pids[@]}")"
  wait "$generator" || true
  CLOSED_FOLDER="$(cat "$folder_file")"
  [[ "$(descendants "$root" | paste -sd' ')" == "$leaves" ]] \
    || problem "$name: the cluster's processes changed during the closed loop (a leaf restarted?): its CPU is not all counted"
  if [[ -z "$CLOSED_FOLDER" ]]; then
    problem "$name: the closed loop did not run (see $log)"
    return 1
  fi
  phase_problems "$CLOSED_FOLDER"
  local goodput errors seconds
  # Refusals only (503 overloaded): other errors are reported as problems by phase_problems above.
  read -r goodput errors seconds < <(lg_read "$CLOSED_FOLDER" phases.0.goodput_per_s phases.0.refused phases.0.duration_s | paste -sd' ')
  # shellcheck disable=SC2034 # read by the caller
  read -r CAPACITY_PER_S REFUSED_PER_S CPU_MS ROOT_CPU_MS LEAF_CPU_MS < <(awk -v g="$goodput" -v e="$errors" -v s="$seconds" \
    -v t0="$t0" -v t1="$t1" -v r0="$root0" -v r1="$root1" -v a0="$all0" -v a1="$all1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
      answers = g * (t1 - t0)
      ms = 1000 / hz
      if (answers > 0) { all = (a1 - a0) * ms / answers; root = (r1 - r0) * ms / answers } else { all = "nan"; root = "nan" }
      if (answers > 0) { leaf = sprintf("%.3f", all - root); all = sprintf("%.3f", all); root = sprintf("%.3f", root) } else { leaf = "nan" }
      printf "%.1f %.1f %s %s %s\n", g, (s > 0 ? e / s : 0), all, root, leaf }')
}
