#!/bin/bash
# Durability fault run (issue 31): Jepsen's set workload against a local cluster of its own while a
# nemesis kills and pauses its processes; ends with the line
#   acknowledged W, lost L, resurrected D, split terms T
# and exits non-zero when L, D or T is not 0 (or when an acknowledged state could not be read back,
# or the run itself failed).
#
#   benchmarks/durability.sh --minutes N --seed S [--nemesis leaf[,root][,zk]] [--port 18431] [--zk]
#       [--leaves 4] [--partitions 16] [--replicas 2] [--clients 4] [--leaf-arg ARG]... [--arg=ARG]... [--out DIR]
#   sudo benchmarks/durability.sh --netns --minutes N --seed S [--nemesis leaf[,link][,zk]] [--leaves 2|3] ...
#
# --zk runs the cluster with './hedgerow local --zk embedded' (its ZooKeeper on --port + 1, data in
# run/zk): each partition's primary, term and in-sync set are stored there, so after the root nemesis
# the restarted root promotes only from the stored in-sync set; every leaf logs the terms it is told
# of to run/terms/leaf-N.log, for the split-terms check. --nemesis zk (needs --zk) kills or pauses
# that ZooKeeper and starts it again (or resumes it). Without --zk: './hedgerow local --zk none', the
# root keeps that state in its memory (local's default is now an embedded ZooKeeper on a free port).
#
# --netns spreads the cluster over network namespaces on a bridge (benchmarks/netns-lib.sh, as
# netns-cluster.sh; docs/multi-host.md): ZooKeeper (always on) and the root on host hr-root1
# (10.77.0.10, root :8080, ZooKeeper :2181), one leaf on each of hr-leaf1..3 (10.77.0.11-13, :9100;
# --leaves 2 or 3, default 3). The script starts each process itself with 'ip netns exec', writes
# their pid files to run/, and gives the loadgen run/start-leaf.sh to start a killed leaf again
# (it returns once the leaf listens and has joined ZooKeeper).
# --nemesis link cuts one host's link (ip link set hrv-<host> down: a leaf host, or the root's,
# whose clients then get no answer) for a fault spell, then restores it; root is not available with
# --netns (its restart would have to start the leaves again too). Needs root; refuses to start when
# a name it makes (hr-root1, hr-leaf1..3, their hrv-* veths, bridge hrbr0) exists; a trap deletes
# them all, and kills every process in them, on any exit. Not with netns-cluster.sh at the same time.
#
# --leaf-arg goes to every leaf's command line; --arg=ARG to 'loadgen durability' (e.g.
# --arg=--quiet=60s..90s for longer spells without a fault; see './hedgerow loadgen durability --help').
#
# It builds a small index of its own (200 documents, in the output folder, so the writes never land
# in the shared Europarl index), starts './hedgerow local' on it with fixed write and admin tokens
# (so the root nemesis can start it again on the same index and run directory), runs
# './hedgerow loadgen durability', and stops the cluster. Not a timing benchmark: the throughput and
# unavailable seconds it reports describe the run, under faults, on whatever else the machine runs.
# Output: --out (default results/durability/seed-S-<time>): durability.log, cluster.log, run/ (pid
# files, leaf logs, and with --zk: terms/ (the leaves' term logs), zk/ and zk.log), and the loadgen's folder with history.jsonl and
# durability.json (throughput, ok/fail/info counts, unavailable seconds, the ids that failed).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
MINUTES=""; SEED=""; NEMESIS=leaf; PORT=18431; LEAVES=""; NETNS=""; PARTITIONS=16; REPLICAS=2; CLIENTS=4; OUT=""; LEAF_ARGS=(); EXTRA=(); ZK=""
usage() { sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || { echo "error: $1 needs a value (see --help)" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) need "$1" "${2:-}"; MINUTES="$2"; shift 2 ;;
    --seed) need "$1" "${2:-}"; SEED="$2"; shift 2 ;;
    --nemesis) need "$1" "${2:-}"; NEMESIS="$2"; shift 2 ;;
    --port) need "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --zk) ZK=yes; shift ;;
    --netns) NETNS=yes; shift ;;
    --leaves) need "$1" "${2:-}"; LEAVES="$2"; shift 2 ;;
    --partitions) need "$1" "${2:-}"; PARTITIONS="$2"; shift 2 ;;
    --replicas) need "$1" "${2:-}"; REPLICAS="$2"; shift 2 ;;
    --clients) need "$1" "${2:-}"; CLIENTS="$2"; shift 2 ;;
    --leaf-arg) need "$1" "${2:-}"; LEAF_ARGS+=("$2"); shift 2 ;;
    --arg=*) EXTRA+=("${1#--arg=}"); shift ;;
    --out) need "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$MINUTES" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "error: --minutes: '$MINUTES' (expected: a number of minutes)" >&2; exit 2; }
[[ "$SEED" =~ ^-?[0-9]+$ ]] || { echo "error: --seed: '$SEED' (expected: an integer)" >&2; exit 2; }
if [[ -n "$NETNS" ]]; then
  ZK=yes   # the stored primaries, terms and in-sync sets are what make a restart safe across hosts
  LEAVES="${LEAVES:-3}"
  [[ "$LEAVES" == 2 || "$LEAVES" == 3 ]] || { echo "error: --leaves: '$LEAVES' (expected with --netns: 2 or 3 leaf hosts)" >&2; exit 2; }
  [[ ",$NEMESIS," != *,root,* ]] || { echo "error: --nemesis root is not available with --netns (see --help)" >&2; exit 2; }
  [[ $EUID -eq 0 ]] || { echo "error: --netns makes network namespaces, veths and a bridge: run it as root" >&2; exit 2; }
  command -v ip >/dev/null 2>&1 || { echo "error: 'ip' (iproute2) is missing" >&2; exit 2; }
  BR=hrbr0; NET=10.77.0; ROOT_PORT=8080; LEAF_PORT=9100; LEAF_HTTP=9200; ZK_PORT=2181
  NAMESPACES=(hr-root1); declare -A ADDR=([hr-root1]=$NET.10)
  for i in $(seq 1 "$LEAVES"); do NAMESPACES+=("hr-leaf$i"); ADDR[hr-leaf$i]="$NET.$((10 + i))"; done
  # shellcheck source=benchmarks/netns-lib.sh
  source "$HERE/benchmarks/netns-lib.sh"
  why="$(netns_names_free)" || { echo "error: $why (a kept netns-cluster.sh cluster? 'benchmarks/netns-cluster.sh --down')" >&2; exit 2; }
else
  LEAVES="${LEAVES:-4}"
  [[ ",$NEMESIS," != *,link,* ]] || { echo "error: --nemesis link needs --netns (the hosts' links it cuts)" >&2; exit 2; }
fi
if [[ ",$NEMESIS," == *,zk,* && -z "$ZK" ]]; then
  echo "error: --nemesis zk needs --zk (the embedded ZooKeeper it kills)" >&2; exit 2
fi
if [[ -z "$NETNS" ]] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "error: port $PORT is in use: pick another with --port" >&2; exit 2
fi
# Without --zk the root keeps the partitions' state in its memory, as the runs recorded before local
# started a ZooKeeper by default (issue 31); this script always runs this checkout, which has --zk none.
# (--netns starts its own ZooKeeper, always.)
ZK_ARGS=(--zk none)
if [[ -n "$ZK" && -z "$NETNS" ]]; then
  ZK_ARGS=(--zk embedded --zk-port "$((PORT + 1))")
  if (exec 3<>"/dev/tcp/127.0.0.1/$((PORT + 1))") 2>/dev/null; then
    echo "error: port $((PORT + 1)) (ZooKeeper's, --port + 1) is in use: pick another --port" >&2; exit 2
  fi
fi
cd "$HERE"
OUT="${OUT:-results/durability/seed-$SEED-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
RUN="$OUT/run"; URL="http://127.0.0.1:$PORT"
say() { echo "[$(date -u +%H:%M:%S)] $*"; }

# Build once, in the foreground; then no command builds while the cluster runs, the root nemesis's
# restarts and the final stop included (they would start another build's code on the same data).
./hedgerow loadgen --version >/dev/null
export HEDGEROW_BUILD=never

if [[ ! -d "$OUT/index" ]]; then
  for i in $(seq 1 200); do
    printf '{"id": "seed-%d", "title": "seed document %d", "body": "hawthorn blackthorn bramble %d"}\n' "$i" "$i" "$i"
  done >"$OUT/seed.jsonl"
  say "Building a 200-document index with $PARTITIONS partitions in $OUT/index"
  ./hedgerow index --input "$OUT/seed.jsonl" --name durability --out "$OUT/index" --partitions "$PARTITIONS" \
    >"$OUT/index.log" 2>&1 || { tail -n 20 "$OUT/index.log" >&2; echo "error: the index build failed" >&2; exit 1; }
fi

token() { head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32; }
WRITE_TOKEN="$(token)"; ADMIN_TOKEN="$(token)"
# ---- --netns: the cluster over network namespaces ----------------------------------------------
# One process per "host" role, each started here with 'ip netns exec' (as netns-cluster.sh starts
# them), pid files in run/ for the nemeses. Runs the whole run and exits.
run_netns() {
  local i ns
  why="$(netns_names_free)" || { echo "error: $why" >&2; exit 2; }   # once more: made since the first check?
  CREATED=0
  # shellcheck disable=SC2317 # run by the EXIT trap
  netns_on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    if ((CREATED)); then netns_teardown; fi
    exit "$rc"
  }
  trap netns_on_exit EXIT
  trap 'echo "Interrupted." >&2; exit 130' INT TERM

  mkdir -p "$RUN/terms"; rm -f "$RUN"/*.pid "$RUN"/*.port
  ln -sfn run "$OUT/logs"   # in_host logs to $OUT/logs/<name>.log: next to the pid files, as local's are
  umask 077; head -c 32 /dev/urandom | base64 | tr -d '/+=\n' >"$RUN/cluster-secret"; umask 022
  # shellcheck source=root-server/src/dist/bin/java-runtime.sh
  source "$HERE/root-server/src/dist/bin/java-runtime.sh"
  JAVA_HOME="$(find_java_home javac)" || exit 1   # as ./hedgerow finds it; every namespace uses the same
  export JAVA_HOME
  export HEDGEROW_ROOT_JVM="${HEDGEROW_ROOT_JVM:--XX:+UseParallelGC -Xmx512m}"
  export HEDGEROW_LEAF_JVM="${HEDGEROW_LEAF_JVM:--XX:+UseParallelGC -Xmx512m}"
  local zk="${ADDR[hr-root1]}:$ZK_PORT" leaves=() leaf_addrs=()
  for i in $(seq 1 "$LEAVES"); do leaves+=("${ADDR[hr-leaf$i]}"); leaf_addrs+=("${ADDR[hr-leaf$i]}:$LEAF_PORT"); done

  # Leaf N (0-based: the root's numbering of --leaves, the pid files' names) on host hr-leaf<N+1>.
  # A script of its own, so that the leaf nemesis starts a killed leaf again exactly so.
  # shellcheck disable=SC2016 # the $-expressions are the written script's, expanded when it runs
  {
    echo '#!/bin/bash'
    echo '# Starts leaf N (0-based) of this durability --netns run in its namespace; written by durability.sh.'
    echo 'set -euo pipefail'
    printf 'n="$1"; addrs=(%s)\n' "${leaves[*]}"
    echo '[[ "$n" =~ ^[0-9]+$ && "$n" -lt ${#addrs[@]} ]] || { echo "leaf: '"'"'$n'"'"' (expected: 0..$((${#addrs[@]} - 1)))" >&2; exit 2; }'
    printf 'cd %q\n' "$HERE"
    printf 'export HEDGEROW_BUILD=never JAVA_HOME=%q HEDGEROW_LEAF_JVM=%q\n' "$JAVA_HOME" "$HEDGEROW_LEAF_JVM"
    printf 'run=%q\n' "$RUN"
    echo 'rm -f "$run/leaf-$n.port"'
    printf 'setsid ip netns exec "hr-leaf$((n + 1))" ./hedgerow leaf --index %q --host "${addrs[n]}" --port %d' "$OUT/index" "$LEAF_PORT"
    printf ' --http-port %d --port-file "$run/leaf-$n.port" --cluster-secret-file "$run/cluster-secret" --node-id "$n"' "$LEAF_HTTP"
    printf ' --warmup 0s --workers 1 --zk %q --zk-cluster durability --term-log "$run/terms/leaf-$n.log"' "$zk"
    for arg in ${LEAF_ARGS[@]+"${LEAF_ARGS[@]}"}; do printf ' %q' "$arg"; done
    echo ' >>"$run/leaf-$n.log" 2>&1 </dev/null &'
    echo 'pid=$!; echo "$pid" >"$run/leaf-$n.pid"'
    # The leaf writes its port file once it listens and has joined ZooKeeper: a restart that
    # returns sooner lets the next fault cut it off from ZooKeeper while it starts, and a leaf
    # that cannot reach ZooKeeper within 3 s of its start exits (seed 21's first run).
    echo 'for _ in $(seq 1 90); do'
    echo '  [[ -f "$run/leaf-$n.port" ]] && exit 0'
    echo '  kill -0 "$pid" 2>/dev/null || { echo "leaf $n (pid $pid) exited while starting; its log: $run/leaf-$n.log" >&2; exit 1; }'
    echo '  sleep 1'
    echo 'done'
    echo 'echo "leaf $n (pid $pid) did not listen within 90 s; its log: $run/leaf-$n.log" >&2; exit 1'
  } >"$RUN/start-leaf.sh"
  chmod +x "$RUN/start-leaf.sh"

  say "Network: bridge $BR ($NET.1/24) and one namespace per host"
  CREATED=1
  netns_up

  say "ZooKeeper in hr-root1: $zk (data in $RUN/zk)"
  in_host hr-root1 zk ./hedgerow zk --host "${ADDR[hr-root1]}" --port "$ZK_PORT" --data-dir "$RUN/zk" --port-file "$RUN/zk.port"
  echo "$IN_HOST_PID" >"$RUN/zk.pid"
  for i in $(seq 1 120); do [[ -f "$RUN/zk.port" ]] && break; kill -0 "$IN_HOST_PID" 2>/dev/null || break; sleep 1; done
  [[ -f "$RUN/zk.port" ]] || { tail -n 20 "$RUN/zk.log" >&2; echo "error: ZooKeeper did not listen" >&2; exit 1; }

  local starting=()
  for i in $(seq 0 $((LEAVES - 1))); do
    say "Leaf $i in hr-leaf$((i + 1)): ${leaf_addrs[i]}"
    "$RUN/start-leaf.sh" "$i" & starting+=("$!")   # each waits for its leaf to listen
  done
  for i in $(seq 0 $((LEAVES - 1))); do
    wait "${starting[i]}" || { tail -n 20 "$RUN/leaf-$i.log" >&2; echo "error: leaf $i did not start" >&2; exit 1; }
  done

  URL="http://${ADDR[hr-root1]}:$ROOT_PORT"
  say "Root in hr-root1: $URL over --leaves $(IFS=,; echo "${leaf_addrs[*]}"), --zk $zk"
  HEDGEROW_WRITE_TOKEN="$WRITE_TOKEN" HEDGEROW_ADMIN_TOKEN="$ADMIN_TOKEN" in_host hr-root1 root ./hedgerow root \
    --leaves "$(IFS=,; echo "${leaf_addrs[*]}")" --host "${ADDR[hr-root1]}" --port "$ROOT_PORT" --index "$OUT/index" \
    --replicas "$REPLICAS" --warmup 0s --cluster-secret-file "$RUN/cluster-secret" --zk "$zk" --zk-cluster durability
  echo "$IN_HOST_PID" >"$RUN/root.pid"
  local waited
  for waited in $(seq 1 300); do
    [[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$URL/ready" || true)" == 200 ]] && break
    if [[ $waited -eq 300 ]] || ! kill -0 "$(cat "$RUN/root.pid")" 2>/dev/null; then
      tail -n 20 "$RUN/root.log" >&2; echo "error: the root was not ready after $waited s" >&2; exit 1
    fi
    sleep 1
  done
  say "Cluster ready after ${waited} s on $URL"

  local links="" status
  for ns in "${NAMESPACES[@]}"; do links+="${links:+,}${ns#hr-}=$(veth "$ns")"; done
  set +e
  ./hedgerow loadgen durability --minutes "$MINUTES" --seed "$SEED" --target "$URL" --run-dir "$RUN" \
    --nemesis "$NEMESIS" --links "$links" --leaf-restart-command "$RUN/start-leaf.sh {leaf}" --clients "$CLIENTS" \
    --write-token "$WRITE_TOKEN" --results "$OUT" ${EXTRA[@]+"${EXTRA[@]}"} 2>&1 | tee "$OUT/durability.log"
  status=${PIPESTATUS[0]}
  set -e
  say "Stopping the cluster"
  netns_teardown
  CREATED=0
  trap - EXIT
  finish "$status"
}

# The run's last line, and its exit status.
finish() { # loadgen status
  local last
  last="$(grep -E '^acknowledged [0-9]+, lost ' "$OUT/durability.log" | tail -n 1 || true)"
  if [[ -z "$last" ]]; then
    echo "error: the durability run did not finish (exit $1; see $OUT/durability.log)" >&2
    exit 1
  fi
  echo "$last"
  exit "$1"
}
[[ -z "$NETNS" ]] || run_netns

LOCAL=(./hedgerow local --index "$OUT/index" --run-dir "$RUN" --port "$PORT" --leaves "$LEAVES" --replicas "$REPLICAS"
  --root-warmup 0s --leaf-warmup 0s --no-leaf-restarts --write-token "$WRITE_TOKEN" --admin-token "$ADMIN_TOKEN"
  ${ZK_ARGS[@]+"${ZK_ARGS[@]}"})
for arg in ${LEAF_ARGS[@]+"${LEAF_ARGS[@]}"}; do LOCAL+=("--leaf-arg=$arg"); done
RESTART_COMMAND="cd $(printf '%q' "$HERE") && exec $(printf '%q ' "${LOCAL[@]}")"

# By its pid file (the root nemesis may have started it again), SIGTERM, its leaves exit with it; the
# launcher's 'local stop' only if that fails.
stop_cluster() {
  local pid waited=0 file alive=""
  pid="$(cat "$RUN/root.pid" 2>/dev/null || true)"
  if [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null; then
    while kill -0 "$pid" 2>/dev/null && [[ $waited -lt 30 ]]; do sleep 1; waited=$((waited + 1)); done
  fi
  for file in "$RUN"/*.pid; do
    if [[ -f "$file" ]] && kill -0 "$(cat "$file")" 2>/dev/null; then alive=yes; fi
  done
  [[ -z "$alive" ]] || ./hedgerow local stop --run-dir "$RUN" >>"$OUT/cluster.log" 2>&1 || true
}
trap stop_cluster EXIT
trap 'echo "Interrupted." >&2; exit 130' INT TERM

SHOWN=("${LOCAL[@]/$WRITE_TOKEN/<write token>}")
say "Starting: ${SHOWN[*]/$ADMIN_TOKEN/<admin token>} (log: $OUT/cluster.log)"
"${LOCAL[@]}" >"$OUT/cluster.log" 2>&1 &
for waited in $(seq 1 300); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/ready" || true)" == 200 ]] && break
  if [[ $waited -eq 300 ]]; then
    tail -n 20 "$OUT/cluster.log" >&2; echo "error: the cluster was not ready after 300 s" >&2; exit 1
  fi
  sleep 1
done
say "Cluster ready after ${waited} s on $URL"

set +e
./hedgerow loadgen durability --minutes "$MINUTES" --seed "$SEED" --target "$URL" --run-dir "$RUN" \
  --nemesis "$NEMESIS" --restart-command "$RESTART_COMMAND" --clients "$CLIENTS" --write-token "$WRITE_TOKEN" \
  --results "$OUT" ${EXTRA[@]+"${EXTRA[@]}"} 2>&1 | tee "$OUT/durability.log"
status=${PIPESTATUS[0]}
set -e
say "Stopping the cluster"
stop_cluster
trap - EXIT
finish "$status"
