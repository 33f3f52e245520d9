#!/bin/bash
# Root-host loss for searches (issue 31: a cluster over network namespaces "survives the loss of the
# root host (the second root takes over) with no failed search"). A scripted check of its own, not
# part of netns-cluster.sh --check (whose roots run without ZooKeeper): this one starts the cluster
# durability.sh --netns runs (benchmarks/netns-lib.sh, netns_cluster_up): ZooKeeper and root 1 on
# hr-root1, root 2 on hr-root2, a leaf on each of hr-leaf1..3, both roots over the same leaves and
# ZooKeeper. Then a search load through both roots, each search client preferring one root and
# failing over to the other, while hr-root1's link is cut (the root host lost, and ZooKeeper with
# it) for --cut seconds, then restored.
#
#   sudo benchmarks/root-failover.sh [--cut 20] [--before 10] [--after 20] [--workers 4] [--limit 0]
#       [--timeout 2] [--leaves 2|3] [--index DIR] [--out DIR]
#
#   --cut S      how long hr-root1's link is down (default: 20)
#   --before S   searching before the cut (default: 10); --after S: after the restore (default: 20)
#   --workers N  search clients, one search at a time each, 0.1 s apart; client i prefers root
#                i mod 2 (default: 4)
#   --timeout S  how long a client waits for one root's answer (curl --max-time; connect: 1 s) before
#                it asks the other root (default: 2); a root that failed is asked second for 10 s
#   --limit F    exit 1 when more than F searches failed (default: 0)
#   --index DIR  an index to serve (a copy of it: the leaves keep live copies in it); default: a
#                200-document index built in the run's folder
#   --out DIR    the run's folder (default: results/root-failover/<time>): logs, pid files, per-search
#                lines (searches.txt: unix time, client, root that answered (1|2, - for none), HTTP
#                code, complete|tainted|failed, seconds)
#
# A search is failed when no root answered it (200); a tainted answer (some partitions missing) is
# answered, and counted apart. It prints progress every 5 s and ends with the line
#   searches S, failed F (root-host loss 20 s)
# exiting 1 when F is above --limit (2 on a usage error or when the cluster did not start). Needs
# root, iproute2's 'ip' and curl; refuses to start when a name it makes (hr-root1, hr-root2,
# hr-leaf1..3, hrv-*, hrbr0) exists; a trap restores the link, stops every process in the namespaces
# and deletes them on any exit. Not with netns-cluster.sh or durability.sh --netns at the same time.
# Not a timing benchmark: five JVMs and the search clients share the machine's cores.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"

CUT=20; BEFORE=10; AFTER=20; WORKERS=4; LIMIT=0; TIMEOUT=2; LEAVES=3; INDEX=""; OUT=""
ROOTS=2; REPLICAS=2; PARTITIONS=16; LEAF_ARGS=()
BR=hrbr0; NET=10.77.0; ROOT_PORT=8080; LEAF_PORT=9100; LEAF_HTTP=9200; ZK_PORT=2181
QUERIES=(hawthorn blackthorn bramble hazel "field+maple" "seed+document" "hawthorn+hazel" "bramble+blackthorn")

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "error: $*" >&2; exit 2; }
need() { [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || die "$1 needs a value (see --help)"; }
STARTED=$SECONDS
say() { printf '[%3d:%02d] %s\n' $(((SECONDS - STARTED) / 60)) $(((SECONDS - STARTED) % 60)) "$*"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --cut) need "$1" "${2:-}"; CUT="$2"; shift 2 ;;
    --before) need "$1" "${2:-}"; BEFORE="$2"; shift 2 ;;
    --after) need "$1" "${2:-}"; AFTER="$2"; shift 2 ;;
    --workers) need "$1" "${2:-}"; WORKERS="$2"; shift 2 ;;
    --limit) need "$1" "${2:-}"; LIMIT="$2"; shift 2 ;;
    --timeout) need "$1" "${2:-}"; TIMEOUT="$2"; shift 2 ;;
    --leaves) need "$1" "${2:-}"; LEAVES="$2"; shift 2 ;;
    --index) need "$1" "${2:-}"; INDEX="$2"; shift 2 ;;
    --out) need "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
for pair in "--cut:$CUT" "--before:$BEFORE" "--after:$AFTER" "--limit:$LIMIT"; do
  [[ "${pair#*:}" =~ ^[0-9]+$ ]] || die "${pair%%:*}: '${pair#*:}' (expected: whole seconds, or a count for --limit)"
done
[[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] || die "--workers: '$WORKERS' (expected: >= 1)"
[[ "$TIMEOUT" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--timeout: '$TIMEOUT' (expected: seconds, e.g. 2 or 1.5)"
[[ "$LEAVES" == 2 || "$LEAVES" == 3 ]] || die "--leaves: '$LEAVES' (expected: 2 or 3)"
[[ $EUID -eq 0 ]] || die "this script makes network namespaces, veths and a bridge: run it as root (e.g. sudo $0)"
command -v ip >/dev/null 2>&1 || die "'ip' (iproute2) is missing: install it (e.g. 'apt install iproute2')"
command -v curl >/dev/null 2>&1 || die "'curl' is missing: install it (e.g. 'apt install curl')"
[[ -z "$INDEX" || -f "$INDEX/index.json" ]] || die "--index: no index.json in $INDEX"

NAMESPACES=(hr-root1); declare -A ADDR=([hr-root1]=$NET.10)
for i in $(seq 1 "$LEAVES"); do NAMESPACES+=("hr-leaf$i"); ADDR[hr-leaf$i]="$NET.$((10 + i))"; done
NAMESPACES+=(hr-root2); ADDR[hr-root2]=$NET.20
# shellcheck source=benchmarks/netns-lib.sh
source "$HERE/benchmarks/netns-lib.sh"
why="$(netns_names_free)" || die "$why (a kept netns-cluster.sh cluster? 'benchmarks/netns-cluster.sh --down')"

cd "$HERE"
OUT="${OUT:-results/root-failover/$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
RUN="$OUT/run"; mkdir -p "$RUN"
ln -sfn run "$OUT/logs"   # in_host logs to $OUT/logs/<name>.log, next to the pid files

CREATED=0
# shellcheck disable=SC2317 # run by the EXIT trap
on_exit() {
  local rc=$? job
  trap - EXIT INT TERM
  rm -f "$OUT/searching"
  for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done   # the search clients
  if ((CREATED)); then netns_heal; netns_teardown; fi
  exit "$rc"
}
trap on_exit EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

# shellcheck source=root-server/src/dist/bin/java-runtime.sh
source "$HERE/root-server/src/dist/bin/java-runtime.sh"
JAVA_HOME="$(find_java_home javac)" || exit 1   # as ./hedgerow finds it; every namespace uses the same
export JAVA_HOME
say "building (if needed)"
./hedgerow root --version >/dev/null
export HEDGEROW_BUILD=never

INDEX_DIR="$OUT/index"
if [[ -n "$INDEX" ]]; then
  say "copying the index $INDEX to $INDEX_DIR (the leaves keep their live copies in it)"
  mkdir -p "$INDEX_DIR"; cp -a "$INDEX/index.json" "$INDEX"/build-* "$INDEX_DIR/"
else
  words=(hawthorn blackthorn bramble hazel field maple holly elder)
  for i in $(seq 1 200); do
    printf '{"id": "seed-%d", "title": "seed document %d", "body": "%s %s %s"}\n' "$i" "$i" \
      "${words[i % 8]}" "${words[(i / 8) % 8]}" "${words[(i / 64) % 8]}"
  done >"$OUT/seed.jsonl"
  say "building a 200-document index with $PARTITIONS partitions in $INDEX_DIR"
  ./hedgerow index --input "$OUT/seed.jsonl" --name rootfailover --out "$INDEX_DIR" --partitions "$PARTITIONS" \
    >"$OUT/index.log" 2>&1 || { tail -n 20 "$OUT/index.log" >&2; echo "error: the index build failed" >&2; exit 2; }
fi

token() { head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32; }
WRITE_TOKEN="$(token)"; ADMIN_TOKEN="$(token)"
say "network: bridge $BR ($NET.1/24) and one namespace per host"
CREATED=1
netns_up
netns_cluster_up || exit 2
say "cluster ready: roots ${ROOT_URLS[*]}"

# One search client: searches one query at a time until $OUT/searching is gone, its own root first
# (root $1 mod 2), the other when that one does not answer 200 within --timeout; a root that failed
# is asked second for 10 s (one timeout per fault, not one per search). A line per search to $2.
search_client() { # client file
  local client="$1" file="$2" i=0 r first code started kind body="$OUT/body-$1.json"
  local -a failed_at=(0 0)
  while [[ -e "$OUT/searching" ]]; do
    first=$((client % 2))
    if (( failed_at[first] > 0 && SECONDS - failed_at[first] < 10 )); then first=$((1 - first)); fi
    started="$EPOCHREALTIME"; kind=failed; code=000; r=-
    for r in "$first" "$((1 - first))"; do
      code="$(curl -s -o "$body" -m "$TIMEOUT" --connect-timeout 1 -w '%{http_code}' \
        "${ROOT_URLS[r]}/search?q=${QUERIES[i % ${#QUERIES[@]}]}&k=5&cache=false" 2>/dev/null || true)"
      if [[ "$code" == 200 ]]; then
        failed_at[r]=0
        kind=complete
        if grep -qE '"tainted" *: *true' "$body"; then kind=tainted; fi
        break
      fi
      failed_at[r]=$SECONDS
    done
    if [[ "$kind" == failed ]]; then r=-; else r=$((r + 1)); fi
    printf '%s %d %s %s %s %.3f\n' "$started" "$client" "$r" "${code:-000}" "$kind" \
      "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" >>"$file"
    i=$((i + 1))
    sleep 0.1
  done
}

SEARCHES="$OUT/searches.txt"; : >"$SEARCHES"
# "searches S, failed F (via root 1 A, root 2 B; tainted T)" for lines of searches.txt from unix time $1 on.
tally() { # from
  awk -v from="${1:-0}" '$1 >= from { n++; if ($5 == "failed") f++; else if ($3 == 1) a++; else b++; if ($5 == "tainted") t++ }
    END { printf "searches %d, failed %d (answered by root 1: %d, root 2: %d; tainted %d)", n, f, a, b, t }' "$SEARCHES"
}
# Waits $1 seconds, printing the tally so far and root 2's /ready every 5 s.
watch_for() { # seconds label
  local until=$((SECONDS + $1)) ready
  while ((SECONDS < until)); do
    sleep "$(( until - SECONDS < 5 ? until - SECONDS : 5 ))"
    ready="$(curl -s -o /dev/null -m 1 -w '%{http_code}' "${ROOT_URLS[1]}/ready" 2>/dev/null || true)"
    say "  $2: $(tally 0); root 2 /ready: ${ready:-000}"
  done
}

touch "$OUT/searching"
for c in $(seq 0 $((WORKERS - 1))); do search_client "$c" "$SEARCHES" & done
say "searching through both roots with $WORKERS clients (client i prefers root i mod 2 + 1), $BEFORE s before the cut"
watch_for "$BEFORE" before
CUT_AT="$EPOCHREALTIME"
ip link set "$(veth hr-root1)" down
say "cut hr-root1's link ($(veth hr-root1) down): root 1 and ZooKeeper are lost for $CUT s"
watch_for "$CUT" "root host lost"
ip link set "$(veth hr-root1)" up
UP_AT="$EPOCHREALTIME"
say "restored hr-root1's link; searching $AFTER s more"
watch_for "$AFTER" after
rm -f "$OUT/searching"
wait
between() { awk -v a="$1" -v b="$2" '$1 >= a && $1 < b { n++; if ($5 == "failed") f++ } END { printf "%d of %d", f, n }' "$SEARCHES"; }
say "failed searches: $(between 0 "$CUT_AT") before the cut, $(between "$CUT_AT" "$UP_AT") during it, $(between "$UP_AT" 9e18) after"
say "$(tally 0)"
say "per-search lines: $SEARCHES; logs: $RUN"
read -r S F <<<"$(awk '{ n++; if ($5 == "failed") f++ } END { print n + 0, f + 0 }' "$SEARCHES")"
echo "searches $S, failed $F (root-host loss $CUT s)"
((F <= LIMIT))
