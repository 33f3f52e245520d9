#!/bin/bash
# A Hedgerow cluster spread over Linux network namespaces on this one machine (issue 31, "A
# multi-host cluster on this machine"): each namespace stands in for a host with its own address,
# joined to the others by a bridge, so a link can be cut and a host's processes paused or killed.
#
#   sudo benchmarks/netns-cluster.sh [--check] [--keep] [--leaves 2|3] [--no-root2] [--index DIR]
#       [--out DIR] [--window SECONDS]
#   sudo benchmarks/netns-cluster.sh --down
#
#   --check     (the default) start the cluster, search, write a document and read it back, then
#               inject each fault in turn while searching, print a summary table, tear everything
#               down; exit 1 when a search failed where the docs promise it must not
#   --keep      start the cluster, print how to reach it and leave it running (with --check: after
#               the checks, whatever they found)
#   --down      tear down a cluster left by --keep (or by a run that could not clean up)
#   --leaves N  leaf hosts: 3 (the default) or 2
#   --no-root2  no second root (its host is still made, to show the layout)
#   --index DIR the Europarl index to serve (default: data/europarl; built with './hedgerow index'
#               when missing); it is copied into the run's folder, so writes never land in it
#   --out DIR   the run's folder (default: results/netns-cluster/<time>): logs, index copy, tokens
#   --window S  the detection window: searches may be tainted for this long after a fault starts
#               (default: 5)
#
# Topology (addresses on 10.77.0.0/24, bridge hrbr0 = 10.77.0.1 in the default namespace):
#   hr-root1 10.77.0.10 (root, HTTP :8080)   hr-leaf1..3 10.77.0.11-13 (leaf :9100, HTTP :9200)
#   hr-root2 10.77.0.20 (second root, HTTP :8080, read-only: its write token is never told)
# Every name it makes starts with 'hr'; it refuses to start when one already exists. A trap kills
# every process in its namespaces and deletes the namespaces, veths and bridge, on any exit,
# Ctrl-C included (not after --keep's successful start). Needs root and iproute2's 'ip'. Not a
# timing benchmark: the machine's cores are shared by every "host". See docs/multi-host.md.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"

CHECK=""; KEEP=0; DOWN=0; LEAVES=3; ROOT2=1; INDEX=""; OUT=""; WINDOW=5
BR=hrbr0; NET=10.77.0; ROOT_PORT=8080; LEAF_PORT=9100; LEAF_HTTP=9200
# Every namespace this script may make, with its address; all of them exist in every mode.
NAMESPACES=(hr-root1 hr-leaf1 hr-leaf2 hr-leaf3 hr-root2)
declare -A ADDR=([hr-root1]=$NET.10 [hr-leaf1]=$NET.11 [hr-leaf2]=$NET.12 [hr-leaf3]=$NET.13 [hr-root2]=$NET.20)
QUERIES=(fisheries+policy human+rights climate+change european+parliament budget agriculture
  "\"common+market\"" energy+security transport+safety enlargement)

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "error: $*" >&2; exit 2; }
need() { [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || die "$1 needs a value (see --help)"; }
STARTED=$SECONDS
say() { printf '[%3d:%02d] %s\n' $(((SECONDS - STARTED) / 60)) $(((SECONDS - STARTED) % 60)) "$*"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) CHECK=1; shift ;;
    --keep) KEEP=1; shift ;;
    --down) DOWN=1; shift ;;
    --leaves) need "$1" "${2:-}"; LEAVES="$2"; shift 2 ;;
    --no-root2) ROOT2=0; shift ;;
    --index) need "$1" "${2:-}"; INDEX="$2"; shift 2 ;;
    --out) need "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    --window) need "$1" "${2:-}"; WINDOW="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ $DOWN == 0 || ($KEEP == 0 && -z "$CHECK") ]] || die "--down goes alone (it tears a cluster down)"
# --keep alone starts the cluster and keeps it; with --check it keeps it after the checks.
[[ -n "$CHECK" ]] || CHECK=$((1 - KEEP))
[[ "$LEAVES" == 2 || "$LEAVES" == 3 ]] || die "--leaves: '$LEAVES' (expected: 2 or 3)"
[[ "$WINDOW" =~ ^[0-9]+$ ]] || die "--window: '$WINDOW' (expected: whole seconds)"
[[ $EUID -eq 0 ]] || die "this script makes network namespaces, veths and a bridge: run it as root (e.g. sudo $0)"
command -v ip >/dev/null 2>&1 || die "'ip' (iproute2) is missing: install it (e.g. 'apt install iproute2')"
command -v curl >/dev/null 2>&1 || die "'curl' is missing: install it (e.g. 'apt install curl')"
command -v jq >/dev/null 2>&1 || die "'jq' is missing: install it (e.g. 'apt install jq')"

# shellcheck source=benchmarks/netns-lib.sh
source "$HERE/benchmarks/netns-lib.sh"
teardown() { netns_teardown; }

if ((DOWN)); then
  teardown
  exit 0
fi

why="$(netns_names_free)" || die "$why (a kept cluster?): run '$0 --down' first"

# From here on, whatever happens, the trap undoes what was made (unless --keep started it all).
CREATED=0; KEEP_ON_EXIT=0
# shellcheck disable=SC2317 # run by the EXIT trap
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  local job
  if ((!KEEP_ON_EXIT)); then
    # Our own background loops and the hosts' processes (teardown then makes sure of the latter).
    for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done
    if ((CREATED)); then teardown; fi
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

cd "$HERE"
OUT="${OUT:-results/netns-cluster/$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT/logs"; OUT="$(cd "$OUT" && pwd)"
# shellcheck source=root-server/src/dist/bin/java-runtime.sh
source "$HERE/root-server/src/dist/bin/java-runtime.sh"
JAVA_HOME="$(find_java_home javac)" || exit 1   # as ./hedgerow finds it; every namespace uses the same
export JAVA_HOME

# Build once, in the default namespace; then no process in a namespace rebuilds.
say "building (if needed)"
./hedgerow root --version >/dev/null
export HEDGEROW_BUILD=never
export HEDGEROW_ROOT_JVM="${HEDGEROW_ROOT_JVM:--XX:+UseParallelGC -Xmx512m}"
export HEDGEROW_LEAF_JVM="${HEDGEROW_LEAF_JVM:--XX:+UseParallelGC -Xmx512m}"

# The index: every "host" reads the same files through the shared filesystem, standing in for each
# machine having its own copy of the index files. A copy of our own takes the live writes.
INDEX="${INDEX:-$HERE/data/europarl}"
if [[ ! -f "$INDEX/index.json" ]]; then
  [[ "$INDEX" == "$HERE/data/europarl" ]] || die "--index: no index.json in $INDEX"
  say "no Europarl index in $INDEX: building it (./hedgerow index)"
  ./hedgerow index
fi
say "copying the index $INDEX to $OUT/index (live writes land in the copy)"
mkdir -p "$OUT/index"
cp -a "$INDEX/index.json" "$INDEX"/build-* "$OUT/index/"
IDX="$OUT/index"

# Secrets, each in a file only root reads: the cluster secret every leaf and root shares, the
# write token of root1 (root2's is random and never written down, so it takes no writes), and an
# admin token.
umask 077
head -c 32 /dev/urandom | base64 | tr -d '/+=\n' >"$OUT/cluster-secret"
head -c 24 /dev/urandom | base64 | tr -d '/+=\n' >"$OUT/write-token"
umask 022
WRITE_TOKEN="$(cat "$OUT/write-token")"

say "network: bridge $BR ($NET.1/24) and one namespace per host"
CREATED=1
netns_up
LEAF_NS=(); LEAF_ADDRS=()
for i in $(seq 1 "$LEAVES"); do LEAF_NS+=("hr-leaf$i"); LEAF_ADDRS+=("${ADDR[hr-leaf$i]}:$LEAF_PORT"); done
LEAVES_FLAG="$(IFS=,; echo "${LEAF_ADDRS[*]}")"

start_leaf() { # namespace
  local ns="$1"
  in_host "$ns" "${ns#hr-}" ./hedgerow leaf --index "$IDX" --host "${ADDR[$ns]}" --port "$LEAF_PORT" \
    --http-port "$LEAF_HTTP" --cluster-secret-file "$OUT/cluster-secret" --node-id "${ns#hr-}" \
    --warmup 5s --workers 1
}

start_root() { # namespace write-token
  local ns="$1"
  HEDGEROW_WRITE_TOKEN="$2" in_host "$ns" "${ns#hr-}" ./hedgerow root --leaves "$LEAVES_FLAG" \
    --host "${ADDR[$ns]}" --port "$ROOT_PORT" --index "$IDX" --replicas 2 --warmup 5s \
    --cluster-secret-file "$OUT/cluster-secret"
}

wait_ready() { # url seconds
  local url="$1" deadline=$((SECONDS + $2))
  until [[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$url/ready" || true)" == 200 ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

wait_leaf_listening() { # namespace seconds
  local ns="$1" deadline=$((SECONDS + $2))
  until curl -s -o /dev/null -m 2 "http://${ADDR[$ns]}:$LEAF_HTTP/health"; do
    ((SECONDS < deadline)) || return 1
    [[ -n "$(ns_pids "$ns")" ]] || return 1   # it exited
    sleep 1
  done
}

for ns in "${LEAF_NS[@]}"; do
  say "leaf in $ns: ${ADDR[$ns]}:$LEAF_PORT (HTTP :$LEAF_HTTP), node id ${ns#hr-}"
  start_leaf "$ns"
done
for ns in "${LEAF_NS[@]}"; do
  wait_leaf_listening "$ns" 120 || die "the leaf in $ns exited or did not listen within 120 s; its log: $OUT/logs/${ns#hr-}.log"
done
ROOT1="http://${ADDR[hr-root1]}:$ROOT_PORT"; ROOT2_URL="http://${ADDR[hr-root2]}:$ROOT_PORT"
say "root1 in hr-root1: $ROOT1 over --leaves $LEAVES_FLAG"
start_root hr-root1 "$WRITE_TOKEN"
if ((ROOT2)); then
  say "root2 in hr-root2: $ROOT2_URL over the same leaves (read-only: a write token nobody knows)"
  start_root hr-root2 "$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')"
fi
wait_ready "$ROOT1" 180 || die "root1 was not ready within 180 s; its log: $OUT/logs/root1.log"
say "root1 ready"
if ((ROOT2)); then
  wait_ready "$ROOT2_URL" 180 || die "root2 was not ready within 180 s; its log: $OUT/logs/root2.log"
  say "root2 ready"
fi

# Leaves the cluster running, says how to reach it, and exits with status $1.
keep_and_exit() { # status
  KEEP_ON_EXIT=1
  local job
  for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done   # our own loops; the hosts are disowned
  cat <<EOF

The cluster runs (logs in $OUT/logs). From this machine's default namespace:
  curl -s '$ROOT1/search?q=fisheries+policy&k=3' | jq
  curl -s '$ROOT1/cluster' | jq
  curl -s -X PUT '$ROOT1/documents/note-1?refresh=wait_for' -H "Authorization: Bearer \$(cat $OUT/write-token)" \\
       -H 'Content-Type: application/json' -d '{"title": "Hedgerow notes", "body": "hawthorn"}'
$( ((ROOT2)) && echo "  curl -s '$ROOT2_URL/search?q=fisheries+policy&k=3' | jq      (root2, read-only)")
Faults by hand:
  ip link set hrv-leaf1 down; ip link set hrv-leaf1 up           (cut and restore leaf1's link)
  kill -STOP \$(ip netns pids hr-leaf2); kill -CONT \$(ip netns pids hr-leaf2)
  ip netns exec hr-leaf1 bash                                    (a shell on "host" leaf1)
Tear it down: $0 --down
EOF
  exit "$1"
}
((CHECK)) || keep_and_exit 0

# ---- check mode ----------------------------------------------------------------------------
FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

# One search; prints "<unix time> <http code> <complete|tainted|failed> <answered>/<total> <hits> <ms>",
# the time being when it was sent and the milliseconds curl waited for the whole answer.
search_once() { # url query
  local body code ms now
  now="$(date +%s.%N)"
  body="$(curl -s -m 5 -w '\n%{http_code} %{time_total}' "$1/search?q=$2&k=5&cache=false" 2>/dev/null || true)"
  read -r code ms <<<"${body##*$'\n'}"; body="${body%$'\n'*}"
  ms="$(awk -v t="${ms:-0}" 'BEGIN { printf "%.0f", t * 1000 }')"
  if [[ "$code" == 200 ]] && jq -e . >/dev/null 2>&1 <<<"$body"; then
    jq -r --arg now "$now" --arg ms "$ms" '"\($now) 200 \(if .tainted then "tainted" else "complete" end) \(.coverage.partitions_answered)/\(.coverage.partitions_total) \(.total_hits.value) \($ms)"' <<<"$body" \
      || echo "$now 200 failed -/- - $ms"
  else
    echo "$now ${code:-000} failed -/- - $ms"
  fi
}

# Searches $1 one at a time until file $2.run is gone, appending a line per search to file $2.
search_loop() { # url file
  local i=0
  while [[ -e "$2.run" ]]; do
    search_once "$1" "${QUERIES[i % ${#QUERIES[@]}]}" >>"$2"
    i=$((i + 1))
    sleep 0.2
  done
}

# Every second, how root1 sees each leaf: "<unix time> <address>=<state> ...", to $OUT/states.txt.
state_loop() {
  while true; do
    printf '%s %s\n' "$(date +%s.%N)" "$(curl -s -m 1 "$ROOT1/cluster" \
      | jq -r '[.leaves[] | "\(.address)=\(.state)/\(.partitions | length)"] | join(" ")' 2>/dev/null || echo unreachable)"
    sleep 1
  done >>"$OUT/states.txt"
}

# How root1's /cluster showed leaf address $1 from unix time $2 until now (states.txt): its state, then
# each change with the seconds since $2, e.g. "up, probation at +17.4 s, up at +24.3 s".
seen_by_root() { # address start
  awk -v a="$1" -v s="$2" -v e="$(date +%s.%N)" '$1 >= s && $1 <= e { st = "unreachable"
      for (i = 2; i <= NF; i++) if (index($i, a "=") == 1) { st = substr($i, length(a) + 2); sub(/\/.*/, "", st) }
      if (out == "") out = st; else if (st != prev) out = out sprintf(", %s at +%.1f s", st, $1 - s)
      prev = st }
    END { print "root1 showed it " out }' "$OUT/states.txt"
}

SUMMARY=()   # "fault|sent|complete|tainted|failed|late|last-not-complete|max ms"
# Tallies file $2 for fault $1 whose fault started at unix time $3; a search that is not complete
# later than the window after the start counts as late (with one leaf host lost and 2 replicas,
# every partition still has a copy once the root noticed).
tally() { # name file start strict(1: failures and late ones fail the check)
  local name="$1" file="$2" start="$3" strict="$4" line
  line="$(awk -v s="$start" -v w="$WINDOW" '
    { n++; if ($3 == "complete") c++; else if ($3 == "tainted") t++; else f++;
      if ($3 != "complete") { d = $1 - s; if (d > last) last = d; if (d > w) late++ }
      if ($6 + 0 > max) max = $6 + 0 }
    END { printf "%d|%d|%d|%d|%d|%s|%d", n, c, t, f, late, (last > 0 ? sprintf("+%.1f s", last) : "-"), max }' "$file")"
  SUMMARY+=("$name|$line")
  IFS='|' read -r sent complete tainted failed late last max <<<"$line"
  say "  $name: $sent searches, $complete complete, $tainted tainted, $failed failed ($late not complete later than ${WINDOW} s after the fault; the last at $last); slowest $max ms"
  if ((strict)); then
    ((failed == 0)) || fail "$name: $failed searches failed (one leaf host lost with 2 replicas must not fail a search)"
    ((late == 0)) || fail "$name: $late searches not complete later than ${WINDOW}s after the fault started"
  fi
}

say "baseline: 20 searches through root1"
: >"$OUT/baseline.txt"
for i in $(seq 0 19); do search_once "$ROOT1" "${QUERIES[i % ${#QUERIES[@]}]}" >>"$OUT/baseline.txt"; done
head -3 "$OUT/baseline.txt" | sed 's/^/           /'
awk '$5 == 0 || $5 == "-" { bad++ } END { exit bad > 0 }' "$OUT/baseline.txt" \
  || fail "baseline: a search found no hits (see $OUT/baseline.txt)"
tally baseline "$OUT/baseline.txt" "$(date +%s)" 1
if ((ROOT2)); then
  : >"$OUT/baseline-root2.txt"
  for i in $(seq 0 9); do search_once "$ROOT2_URL" "${QUERIES[i % ${#QUERIES[@]}]}" >>"$OUT/baseline-root2.txt"; done
  tally "baseline root2" "$OUT/baseline-root2.txt" "$(date +%s)" 1
fi

DOC="netns-$(date +%s)"
say "write: PUT /documents/$DOC through root1, then read it back"
code="$(curl -s -o "$OUT/put.json" -w '%{http_code}' -m 30 -X PUT "$ROOT1/documents/$DOC?refresh=wait_for" \
  -H "Authorization: Bearer $WRITE_TOKEN" -H 'Content-Type: application/json' \
  -d '{"title": "Hedgerow across hosts", "body": "A hawthornhedgerow planted between network namespaces."}' || true)"
say "  PUT: $code $(head -c 200 "$OUT/put.json")"
[[ "$code" == 200 || "$code" == 201 ]] || fail "PUT /documents/$DOC answered $code"
read_back() { # url label
  local got hits
  got="$(curl -s -m 10 "$1/documents/$DOC" | jq -r '.fields.title // .title // .source.title // empty' 2>/dev/null || true)"
  hits="$(curl -s -m 10 "$1/search?q=hawthornhedgerow&cache=false" | jq -r '[.hits[].id] | join(",")' 2>/dev/null || true)"
  say "  $2: GET title '$got'; search hits [$hits]"
  [[ "$got" == "Hedgerow across hosts" ]] || fail "$2: GET /documents/$DOC did not return the document"
  [[ ",$hits," == *",$DOC,"* ]] || fail "$2: a search did not find document $DOC"
}
read_back "$ROOT1" "read back through root1"
if ((ROOT2)); then
  read_back "$ROOT2_URL" "read back through root2"
  code="$(curl -s -o /dev/null -w '%{http_code}' -m 10 -X PUT "$ROOT2_URL/documents/$DOC-root2" \
    -H 'Content-Type: application/json' -d '{"title": "x"}' || true)"
  say "  a write through root2 without its token: $code (expected 401: root2 is read-only)"
  [[ "$code" == 401 ]] || fail "root2 took a write without a token (answered $code)"
fi

# Searching through $2 into file $3 while a fault runs: from 2 s before it until stop_search.
start_search() { # url file
  : >"$2"; touch "$2.run"
  search_loop "$1" "$2" &
  SEARCHER=$!; SEARCH_FILE="$2"
  sleep 2
}
stop_search() { rm -f "$SEARCH_FILE.run"; wait "$SEARCHER"; }

state_loop &
say "fault 1: cut hr-leaf1's link (ip link set hrv-leaf1 down) for 10 s"
start_search "$ROOT1" "$OUT/fault-link.txt"
T0="$(date +%s.%N)"; ip link set hrv-leaf1 down
sleep 10
ip link set hrv-leaf1 up; say "  link restored"
sleep 8; stop_search
say "  leaf1: $(seen_by_root "${ADDR[hr-leaf1]}:$LEAF_PORT" "$T0")"
tally "1 link cut (leaf1, 10 s)" "$OUT/fault-link.txt" "$T0" 1

say "fault 2: SIGSTOP every process of hr-leaf2 for 5 s"
start_search "$ROOT1" "$OUT/fault-pause.txt"
T0="$(date +%s.%N)"
# shellcheck disable=SC2046 # one pid per word
kill -STOP $(ip netns pids hr-leaf2)
sleep 5
# shellcheck disable=SC2046
kill -CONT $(ip netns pids hr-leaf2); say "  resumed"
sleep 8; stop_search
say "  leaf2: $(seen_by_root "${ADDR[hr-leaf2]}:$LEAF_PORT" "$T0")"
tally "2 pause (leaf2, 5 s)" "$OUT/fault-pause.txt" "$T0" 1

KILLED=hr-leaf$LEAVES
KILLED_ADDR="${ADDR[$KILLED]}:$LEAF_PORT"
say "fault 3: SIGKILL every process of $KILLED, then start its leaf again 5 s later"
start_search "$ROOT1" "$OUT/fault-kill.txt"
T0="$(date +%s.%N)"
# shellcheck disable=SC2046
kill -KILL $(ip netns pids "$KILLED")
sleep 5
start_leaf "$KILLED"; say "  leaf started again in $KILLED (same node id, same port)"
RESTART_AT=$SECONDS
wait_leaf_listening "$KILLED" 120 || fail "the restarted leaf in $KILLED did not listen within 120 s"
# The root reconnects by itself; the leaf is back once root1's /cluster says it is up with copies.
back=0
for _ in $(seq 1 120); do
  if curl -s -m 2 "$ROOT1/cluster" | jq -e --arg a "$KILLED_ADDR" \
      '.leaves[] | select(.address == $a and .state == "up" and (.partitions | length) > 0)' >/dev/null 2>&1; then
    back=1; break
  fi
  sleep 1
done
say "  root1 serves from $KILLED_ADDR again: $( ((back)) && echo "yes, $((SECONDS - RESTART_AT)) s after the restart" || echo "no, not within 120 s")"
((back)) || fail "root1 did not take the restarted leaf $KILLED_ADDR back within 120 s"
sleep 10; stop_search
curl -s -m 5 "$ROOT1/cluster" >"$OUT/cluster-after-restart.json" || true
say "  $KILLED: $(seen_by_root "$KILLED_ADDR" "$T0")"
tally "3 kill + restart ($KILLED)" "$OUT/fault-kill.txt" "$T0" 1
read_back "$ROOT1" "read back through root1 after the faults"

if ((ROOT2)); then
  say "fault 4: cut hr-root1's link for 10 s and search through root2"
  start_search "$ROOT2_URL" "$OUT/fault-root.txt"
  T0="$(date +%s.%N)"; ip link set hrv-root1 down
  code="$(curl -s -o /dev/null -m 3 -w '%{http_code}' "$ROOT1/health" || true)"
  say "  root1 from outside while cut: HTTP ${code:-000} (expected 000: unreachable)"
  sleep 7
  ip link set hrv-root1 up; say "  link restored"
  sleep 2; stop_search
  tally "4 root1 cut, via root2" "$OUT/fault-root.txt" "$T0" 1
  : >"$OUT/after-root.txt"
  for i in $(seq 0 9); do search_once "$ROOT1" "${QUERIES[i % ${#QUERIES[@]}]}" >>"$OUT/after-root.txt"; done
  tally "4b root1 after restore" "$OUT/after-root.txt" "$(date +%s)" 1
  read_back "$ROOT2_URL" "read back through root2 after the faults"
  curl -s -m 5 "$ROOT2_URL/cluster" >"$OUT/cluster-root2-end.json" || true
fi
curl -s -m 5 "$ROOT1/cluster" >"$OUT/cluster-root1-end.json" || true

echo
printf '%-28s %5s %8s %7s %6s %4s %8s %s\n' fault sent complete tainted failed late "max ms" "last not complete"
for row in "${SUMMARY[@]}"; do
  IFS='|' read -r name sent complete tainted failed late last max <<<"$row"
  printf '%-28s %5s %8s %7s %6s %4s %8s %s\n' "$name" "$sent" "$complete" "$tainted" "$failed" "$late" "$max" "$last"
done
echo "(late: not complete more than ${WINDOW} s after the fault started; max ms: the slowest answer as curl"
echo " waited for it; logs, per-search lines and root1's view of the leaves each second in $OUT)"
if ((FAILS)); then
  echo "netns-cluster: $FAILS check(s) failed" >&2
else
  say "netns-cluster: every check passed"
fi
((!KEEP)) || keep_and_exit "$((FAILS > 0))"
exit "$((FAILS > 0))"
