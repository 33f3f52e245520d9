#!/bin/bash
# Durability fault run (issue 31): Jepsen's set workload against a local cluster of its own while a
# nemesis kills and pauses its processes; ends with the line
#   acknowledged W, lost L, resurrected D, split terms T
# and exits non-zero when L, D or T is not 0 (or when an acknowledged state could not be read back,
# or the run itself failed).
#
#   benchmarks/durability.sh --minutes N --seed S [--nemesis leaf[,root][,zk]] [--port 18431] [--zk]
#       [--leaves 4] [--partitions 16] [--replicas 2] [--clients 4] [--leaf-arg ARG]... [--arg=ARG]... [--out DIR]
#   sudo benchmarks/durability.sh --netns --minutes N --seed S [--nemesis leaf[,root][,link][,partition][,zk]]
#       [--leaves 2|3] [--roots 1|2] ...
#
# --zk runs the cluster with './hedgerow local --zk embedded' (its ZooKeeper on --port + 1, data in
# run/zk): each partition's primary, term and in-sync set are stored there, so after the root nemesis
# the restarted root promotes only from the stored in-sync set; every leaf logs the terms it is told
# of to run/terms/leaf-N.log, for the split-terms check. --nemesis zk (needs --zk) kills or pauses
# that ZooKeeper and starts it again (or resumes it). Without --zk: './hedgerow local --zk none', the
# root keeps that state in its memory (local's default is now an embedded ZooKeeper on a free port).
#
# --netns spreads the cluster over network namespaces on a bridge (benchmarks/netns-lib.sh, as
# netns-cluster.sh; docs/multi-host.md): ZooKeeper (always on) and root 1 on host hr-root1
# (10.77.0.10, root :8080, ZooKeeper :2181), root 2 on hr-root2 (10.77.0.20, :8080; --roots 2, the
# default), one leaf on each of hr-leaf1..3 (10.77.0.11-13, :9100; --leaves 2 or 3, default 3).
# Both roots serve the same leaves and ZooKeeper and take writes (the same write token); client i of
# the checker writes through root i mod 2 and fails over to the other on no connection, no answer
# or 503 (a write whose first root got no answer counts as indeterminate); the final reads go
# through any root that answers. --roots 1 starts root 1 only (every client on it). Until any root
# can write safely (primary-led replication), two writing roots may throw replicas out of sync:
# safe, but noisier. The script starts each process itself with 'ip netns exec' (netns_cluster_up),
# writes their pid files to run/ (zk.pid, leaf-N.pid, root-N.pid), and gives the checker
# run/start-leaf.sh N and run/start-root.sh N, which start a killed leaf or root again in its
# namespace and return once it serves (a leaf: listens and has joined ZooKeeper; a root: /ready).
# Nemeses with --netns:
#   leaf       kill (SIGKILL) or pause (SIGSTOP) a primary or replica; resume it, or start it again
#   root       kill or pause one root process (the leaves run on: a root restarts alone); resume it,
#              or start it again with run/start-root.sh
#   link       cut one host's link (ip link set hrv-<host> down: a leaf host or a root's, ZooKeeper's
#              with root 1's), then restore it
#   partition  split the hosts into random halves (by the seed; e.g. {hr-root1, hr-leaf1} |
#              {hr-root2, hr-leaf2, hr-leaf3}) that drop each other's packets silently (each host:
#              'ip rule add pref 10 from <address> blackhole', iptables and nft being absent here),
#              then heal
#   zk         kill or pause ZooKeeper (on hr-root1, always: its loss is this nemesis), half the time
#              with one leaf too
# One fault at a time, for a spell (3-10 s by default); each start and end is a nemesis entry of
# history.jsonl (the host, the groups). The exit trap restores every link and deletes every
# partition rule (netns_heal), then kills every process in the namespaces and deletes them. Needs
# root; refuses to start when a name it makes (hr-root1, hr-root2, hr-leaf1..3, their hrv-* veths,
# bridge hrbr0) exists. Not with netns-cluster.sh or root-failover.sh at the same time.
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
# files, leaf logs (with --netns root logs too), and with --zk: terms/ (the leaves' term logs), zk/ and zk.log), and the loadgen's folder with history.jsonl and
# durability.json (throughput, ok/fail/info counts, unavailable seconds, the ids that failed).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
MINUTES=""; SEED=""; NEMESIS=leaf; PORT=18431; LEAVES=""; ROOTS=""; NETNS=""; PARTITIONS=16; REPLICAS=2; CLIENTS=4; OUT=""; LEAF_ARGS=(); EXTRA=(); ZK=""
usage() { sed -n '2,61p' "$0" | sed 's/^# \{0,1\}//'; }
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
    --roots) need "$1" "${2:-}"; ROOTS="$2"; shift 2 ;;
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
  ROOTS="${ROOTS:-2}"
  [[ "$ROOTS" == 1 || "$ROOTS" == 2 ]] || { echo "error: --roots: '$ROOTS' (expected: 1 or 2)" >&2; exit 2; }
  [[ $EUID -eq 0 ]] || { echo "error: --netns makes network namespaces, veths and a bridge: run it as root" >&2; exit 2; }
  command -v ip >/dev/null 2>&1 || { echo "error: 'ip' (iproute2) is missing" >&2; exit 2; }
  BR=hrbr0; NET=10.77.0; ROOT_PORT=8080; LEAF_PORT=9100; LEAF_HTTP=9200; ZK_PORT=2181
  NAMESPACES=(hr-root1); declare -A ADDR=([hr-root1]=$NET.10)
  for i in $(seq 1 "$LEAVES"); do NAMESPACES+=("hr-leaf$i"); ADDR[hr-leaf$i]="$NET.$((10 + i))"; done
  if [[ "$ROOTS" == 2 ]]; then NAMESPACES+=(hr-root2); ADDR[hr-root2]=$NET.20; fi
  # shellcheck source=benchmarks/netns-lib.sh
  source "$HERE/benchmarks/netns-lib.sh"
  why="$(netns_names_free)" || { echo "error: $why (a kept netns-cluster.sh cluster? 'benchmarks/netns-cluster.sh --down')" >&2; exit 2; }
else
  LEAVES="${LEAVES:-4}"
  [[ ",$NEMESIS," != *,link,* ]] || { echo "error: --nemesis link needs --netns (the hosts' links it cuts)" >&2; exit 2; }
  [[ ",$NEMESIS," != *,partition,* ]] || { echo "error: --nemesis partition needs --netns (the hosts it splits)" >&2; exit 2; }
  [[ -z "$ROOTS" || "$ROOTS" == 1 ]] || { echo "error: --roots $ROOTS needs --netns (a local cluster has one root)" >&2; exit 2; }
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
  local ns
  why="$(netns_names_free)" || { echo "error: $why" >&2; exit 2; }   # once more: made since the first check?
  CREATED=0
  # shellcheck disable=SC2317 # run by the EXIT trap
  netns_on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    if ((CREATED)); then netns_heal; netns_teardown; fi
    exit "$rc"
  }
  trap netns_on_exit EXIT
  trap 'echo "Interrupted." >&2; exit 130' INT TERM

  mkdir -p "$RUN"; rm -f "$RUN"/*.pid "$RUN"/*.port
  ln -sfn run "$OUT/logs"   # in_host logs to $OUT/logs/<name>.log: next to the pid files, as local's are
  # shellcheck source=root-server/src/dist/bin/java-runtime.sh
  source "$HERE/root-server/src/dist/bin/java-runtime.sh"
  JAVA_HOME="$(find_java_home javac)" || exit 1   # as ./hedgerow finds it; every namespace uses the same
  export JAVA_HOME

  say "Network: bridge $BR ($NET.1/24) and one namespace per host"
  CREATED=1
  netns_up
  INDEX_DIR="$OUT/index"
  netns_cluster_up || exit 1
  URL="${ROOT_URLS[0]}"
  say "Cluster ready: roots $(IFS=,; echo "${ROOT_URLS[*]}")"

  local links="" hosts="" status
  for ns in "${NAMESPACES[@]}"; do
    links+="${links:+,}${ns#hr-}=$(veth "$ns")"
    hosts+="${hosts:+,}$ns=${ADDR[$ns]}"
  done
  set +e
  ./hedgerow loadgen durability --minutes "$MINUTES" --seed "$SEED" --target "$(IFS=,; echo "${ROOT_URLS[*]}")" \
    --run-dir "$RUN" --nemesis "$NEMESIS" --links "$links" --hosts "$hosts" \
    --leaf-restart-command "$RUN/start-leaf.sh {leaf}" --root-restart-command "$RUN/start-root.sh {root}" \
    --clients "$CLIENTS" --write-token "$WRITE_TOKEN" --results "$OUT" ${EXTRA[@]+"${EXTRA[@]}"} 2>&1 | tee "$OUT/durability.log"
  status=${PIPESTATUS[0]}
  set -e
  say "Stopping the cluster"
  netns_heal
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
