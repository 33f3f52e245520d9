#!/bin/bash
# Durability fault run (issue 31): Jepsen's set workload against a local cluster of its own while a
# nemesis kills and pauses its processes; ends with the line
#   acknowledged W, lost L, resurrected D, split terms T
# and exits non-zero when L, D or T is not 0 (or when an acknowledged state could not be read back,
# or the run itself failed).
#
#   benchmarks/durability.sh --minutes N --seed S [--nemesis leaf[,root][,zk]] [--port 18431] [--zk]
#       [--leaves 4] [--partitions 16] [--replicas 2] [--clients 4] [--leaf-arg ARG]... [--arg=ARG]... [--out DIR]
#
# --zk runs the cluster with './hedgerow local --zk embedded' (its ZooKeeper on --port + 1, data in
# run/zk): each partition's primary, term and in-sync set are stored there, so after the root nemesis
# the restarted root promotes only from the stored in-sync set; every leaf logs the terms it is told
# of to run/terms/leaf-N.log, for the split-terms check. --nemesis zk (needs --zk) kills or pauses
# that ZooKeeper and starts it again (or resumes it). Without --zk: './hedgerow local --zk none', the
# root keeps that state in its memory (local's default is now an embedded ZooKeeper on a free port).
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
MINUTES=""; SEED=""; NEMESIS=leaf; PORT=18431; LEAVES=4; PARTITIONS=16; REPLICAS=2; CLIENTS=4; OUT=""; LEAF_ARGS=(); EXTRA=(); ZK=""
usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || { echo "error: $1 needs a value (see --help)" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) need "$1" "${2:-}"; MINUTES="$2"; shift 2 ;;
    --seed) need "$1" "${2:-}"; SEED="$2"; shift 2 ;;
    --nemesis) need "$1" "${2:-}"; NEMESIS="$2"; shift 2 ;;
    --port) need "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --zk) ZK=yes; shift ;;
    --leaves) need "$1" "${2:-}"; LEAVES="$2"; shift 2 ;;
    --partitions) need "$1" "${2:-}"; PARTITIONS="$2"; shift 2 ;;
    --replicas) need "$1" "${2:-}"; REPLICAS="$2"; shift 2 ;;
    --clients) need "$1" "${2:-}"; CLIENTS="$2"; shift 2 ;;
    --leaf-arg) need "$1" "${2:-}"; LEAF_ARGS+=("--leaf-arg=$2"); shift 2 ;;
    --arg=*) EXTRA+=("${1#--arg=}"); shift ;;
    --out) need "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$MINUTES" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "error: --minutes: '$MINUTES' (expected: a number of minutes)" >&2; exit 2; }
[[ "$SEED" =~ ^-?[0-9]+$ ]] || { echo "error: --seed: '$SEED' (expected: an integer)" >&2; exit 2; }
if [[ ",$NEMESIS," == *,zk,* && -z "$ZK" ]]; then
  echo "error: --nemesis zk needs --zk (the embedded ZooKeeper it kills)" >&2; exit 2
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "error: port $PORT is in use: pick another with --port" >&2; exit 2
fi
# Without --zk the root keeps the partitions' state in its memory, as the runs recorded before local
# started a ZooKeeper by default (issue 31); this script always runs this checkout, which has --zk none.
ZK_ARGS=(--zk none)
if [[ -n "$ZK" ]]; then
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
LOCAL=(./hedgerow local --index "$OUT/index" --run-dir "$RUN" --port "$PORT" --leaves "$LEAVES" --replicas "$REPLICAS"
  --root-warmup 0s --leaf-warmup 0s --no-leaf-restarts --write-token "$WRITE_TOKEN" --admin-token "$ADMIN_TOKEN"
  ${ZK_ARGS[@]+"${ZK_ARGS[@]}"} ${LEAF_ARGS[@]+"${LEAF_ARGS[@]}"})
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
LAST="$(grep -E '^acknowledged [0-9]+, lost ' "$OUT/durability.log" | tail -n 1 || true)"
if [[ -z "$LAST" ]]; then
  echo "error: the durability run did not finish (exit $status; see $OUT/durability.log)" >&2
  exit 1
fi
echo "$LAST"
exit "$status"
