#!/usr/bin/env bash
# Write throughput with 2 fsynced replicas, this checkout against another, interleaved
# (issue 31: "no lower than a baseline run of 33b4dc2 interleaved with it").
#
#   benchmarks/write-throughput.sh --checkout DIR [--rounds 3] [--seconds 30]
#
# Each run: a fresh copy of that build's own Europarl index (data/europarl, built by it), its
# `./hedgerow local --leaves 4 --replicas 2`, then benchmarks/ingestion-bench.py --ingest-only (this
# checkout's client for both builds): 16 threads posting bulk bodies of new Europarl documents for
# --seconds, documents acknowledged per second and CPU ms per document. Takes /tmp/hedgerow-bench.lock.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
OTHER="" ROUNDS=3 SECONDS_=30 PORT=18600
while [[ $# -gt 0 ]]; do
  case $1 in
    --checkout) OTHER=$(cd "$2" && pwd); shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seconds) SECONDS_=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $OTHER ]] || { echo "--checkout DIR is required (the baseline checkout)" >&2; exit 2; }
for build in "$HERE" "$OTHER"; do
  [[ -f $build/data/europarl/index.json ]] || { echo "$build/data/europarl: no index (run that build's ./hedgerow demo once)" >&2; exit 2; }
done
OUT=$HERE/results/write-throughput-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
exec 9>/tmp/hedgerow-bench.lock
flock -n 9 || { echo "waiting for /tmp/hedgerow-bench.lock (another benchmark runs)"; flock 9; }
echo "build	round	commit	line" > "$OUT/runs.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for build in "$HERE" "$OTHER"; do
    commit=$(git -C "$build" rev-parse --short HEAD)
    data=$(mktemp -d /tmp/write-throughput-data.XXXX)
    cp -r "$build/data/europarl" "$data/"
    [[ -d $build/data/queries ]] && cp -r "$build/data/queries" "$data/"
    echo "[$(date -u +%H:%M:%S)] round $round/$ROUNDS: $commit ($build)"
    line=$(python3 "$HERE/benchmarks/ingestion-bench.py" --ingest-only --launcher "$build/hedgerow" --data "$data" \
      --port $PORT --ingest-seconds "$SECONDS_" 2>&1 | tee "$OUT/run-$round-$commit.log" | grep '^ingest:' || true)
    echo "  ${line:-no ingest line: see $OUT/run-$round-$commit.log}"
    printf '%s\t%s\t%s\t%s\n' "$build" "$round" "$commit" "$line" >> "$OUT/runs.tsv"
    # The cluster's log (catch-ups, replicas out of sync, refusals) explains a run that stands out.
    cp "$data/ingestion-bench-cluster.log" "$OUT/cluster-$round-$commit.log" 2>/dev/null || true
    rm -rf "$data"
  done
done
echo "Done: $OUT/runs.tsv"
