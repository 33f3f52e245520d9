#!/usr/bin/env bash
# Validation of the simulator against the local cluster (docs/simulation.md, "Validation against
# reality"): the tail suite's no-fault and pause scenarios measured on ./hedgerow local, each run's
# per-leaf service times (the root's /metrics/leaves, saved by the load generator as .hgrm files)
# replayed in ./hedgerow simulate with the cluster's shape, the same rate and the same fault, and a
# table of measured against simulated p50/p99/p99.9.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3
ONLY_ROUND=""
CAPACITY=""
PORT=8400
OUT=""
PHASE_DURATION=""
LOCK="${CPU_LOCK:-/work/cpu.lock}"
MEASURE=1
SEED=1

usage() {
  cat <<'USAGE'
Usage: benchmarks/sim-validation.sh --capacity N [options]

Measures the tail suite's no-fault and pause scenarios on ./hedgerow local (benchmarks/tail-suite.sh
--only no-fault,pause, one round per locked command, each round a fresh cluster), then replays each
measured run in ./hedgerow simulate:
  cluster   4 leaves, 16 partitions x 2 replicas, the root's defaults (hedged at the adaptive p95
            with its 10% budget, good-enough cutoff at 90% coverage, C3 choice, stall detection and
            probation; not the canary: see docs/simulation.md)
  rate      the rate the run achieved; as many searches as it answered (plus the 5% warm-up)
  pause     for the pause scenario: one leaf stopped 150 ms every second (--pause-every 1s --pause
            150ms --pause-leaves 1), with the no-fault run's times (the pause run's own hold the pause)
in three variants, each from the same round's no-fault phase (<phase>-leaves/ of its results folder):
  service     each leaf's own service time (leaf-N-search-service.hgrm), one worker per core per leaf
              (nproc), contention 0 (the measured time holds this load's slowdown), the network half
              of (round trip - queue - service) at the median: the simulator's model as designed
  round-trip  each leaf's root-observed round trip (leaf-N-search-round_trip.hgrm) as the work, no
              network, 64 workers a leaf so that nothing queues again: the measured sub-requests as a
              whole, which tests the request path's composition apart from the leaf model
  cores       the machine as one: --cores (nproc) shared by every leaf, the root and the generator, each
              leaf's own CPU time per search and fetch (leaf-N-<search|fetch>-cpu.hgrm) as the work, one
              worker per core per leaf, the root's fetch phase run (--hits fitted so that it sends the
              run's fetches per search), and the
              CPU of the root per message, of the leaves per sub-request beyond their workers' and of the
              generator per search, each calibrated from the phase's busy cores (summary.json
              root.cpu_cores); 20 us of loopback each way
and writes validation.md: measured p50/p99/p99.9 (median of the runs [min-max]) against simulated
(and simulated plus a fetch phase drawn from the measured fetch round trips), whether the simulated
p99 is within 20% of the measured median and its p99.9 within the measured range.

Options:
  --capacity N        The capacity the scenario rates are set from (req/s; half of it is the rate). Required
                      unless --simulate-only.
  --rounds N          Rounds of both scenarios (default: 3).
  --round K           Measure only round K (1..rounds) into --out, then simulate what is there: split a long
                      validation over several sessions.
  --simulate-only     Measure nothing: simulate and tabulate the rounds already in --out.
  --port N            The root's HTTP port (default: 8400).
  --phase-duration D  Measured phase length (default: the suite's full 50,000 requests).
  --out DIR           Results folder (default: results/<time>-sim-validation).
  --seed N            The simulations' seed (default: 1).
  --no-lock           Do not take the shared CPU lock (default: each round and the simulations under
                      flock $CPU_LOCK, /work/cpu.lock, when it exists).
  -h, --help          This help.
USAGE
}

die() { echo "error: $*" >&2; exit 1; }
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
need() { [[ -n "${2:-}" && "${2:0:2}" != "--" ]] || die "$1 needs a value (see --help)"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --capacity) need "$1" "${2:-}"; CAPACITY="$2"; shift 2 ;;
    --rounds) need "$1" "${2:-}"; ROUNDS="$2"; shift 2 ;;
    --round) need "$1" "${2:-}"; ONLY_ROUND="$2"; shift 2 ;;
    --simulate-only) MEASURE=0; shift ;;
    --port) need "$1" "${2:-}"; PORT="$2"; shift 2 ;;
    --phase-duration) need "$1" "${2:-}"; PHASE_DURATION="$2"; shift 2 ;;
    --out) need "$1" "${2:-}"; OUT="$2"; shift 2 ;;
    --seed) need "$1" "${2:-}"; SEED="$2"; shift 2 ;;
    --no-lock) LOCK=""; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' (expected: >= 1)"
[[ -z "$ONLY_ROUND" || ( "$ONLY_ROUND" =~ ^[1-9][0-9]*$ && "$ONLY_ROUND" -le "$ROUNDS" ) ]] \
  || die "--round: '$ONLY_ROUND' (expected: 1..$ROUNDS)"
if [[ $MEASURE == 1 ]]; then
  [[ "$CAPACITY" =~ ^[1-9][0-9]*$ ]] || die "--capacity: '$CAPACITY' (expected: req/s, e.g. 590; see docs/benchmarks/tail-suite.md)"
fi
[[ -n "$LOCK" && ! -e "$LOCK" ]] && LOCK=""
OUT="${OUT:-$HERE/results/$(date +%Y%m%d-%H%M%S)-sim-validation}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
HEDGEROW="$HERE/hedgerow"
locked() { if [[ -n "$LOCK" ]]; then flock "$LOCK" "$@"; else "$@"; fi; }

# ---------------------------------------------------------------- measure
if [[ $MEASURE == 1 ]]; then
  rounds=$(seq 1 "$ROUNDS")
  [[ -z "$ONLY_ROUND" ]] || rounds="$ONLY_ROUND"
  for round in $rounds; do
    [[ ! -d "$OUT/round-$round" ]] || die "$OUT/round-$round exists: that round was measured (pick another --round or --out)"
    say "Round $round/$ROUNDS: no-fault and pause (benchmarks/tail-suite.sh, ${LOCK:+under $LOCK})"
    args=(--only no-fault,pause --runs 1 --capacity "$CAPACITY" --port "$PORT" --results "$OUT/round-$round"
      --label "round-$round")
    [[ -z "$PHASE_DURATION" ]] || args+=(--phase-duration "$PHASE_DURATION")
    locked "$HERE/benchmarks/tail-suite.sh" "${args[@]}" >"$OUT/round-$round.log" 2>&1 \
      || say "  round $round reported problems (see $OUT/round-$round.log)"
  done
fi

# ---------------------------------------------------------------- replay
# One run folder of a scenario in a round: <round>/<suite>/runs/<time>-<scenario>.
run_folder() { ls -d "$OUT/round-$1"/*/runs/*-"$2" 2>/dev/null | head -n 1 || true; }
# The per-leaf files of one part (service, round_trip) of a <phase>-leaves/ folder, comma-separated.
leaf_files() { ls "$1"/leaf-*-search-"$2".hgrm | sort -V | paste -sd, -; }
WORKERS="$(nproc)"
# One way over loopback with the CPU of both ends counted apart (the cores variant's messages).
LOOPBACK=20us
# Every simulation under one hold of the lock (a few seconds each), not one wait per run.
if [[ -n "$LOCK" ]]; then
  exec 9>>"$LOCK"
  flock 9
fi
# The hits per search (--hits) at which the simulated root's fetch phase sends as many fetches per
# search as the measured root did: a few short runs, each scaling hits by measured/simulated.
declare -a hits=()
fit_hits() {
  local folder="$1"; shift
  local answered target h f
  read -r _ answered < <(python3 "$HERE/benchmarks/sim_validation.py" rate "$folder/summary.json" steady)
  target="$(python3 "$HERE/benchmarks/sim_validation.py" fetches "$folder/steady-leaves" "$answered")"
  h="$target"
  for _ in 1 2 3 4; do
    f="$("$HEDGEROW" simulate --leaves 4 --partitions 16 --replicas 2 --contention 0 --rate "$rate" --queries 10000 \
      --policy hedged+good-enough "$@" --hits "$h" --seed "$SEED" --json 2>/dev/null \
      | python3 -c 'import json,sys; s=json.load(sys.stdin); s=s[0] if isinstance(s,list) else s; print(s["fetches_per_search"])')"
    h="$(python3 -c "print(f'{min(10.0, $h * $target / max($f, 1e-9)):.3f}')")"
  done
  say "  hits per search fitted: $h (measured $target fetches per search, simulated $f before the last step)" >&2
  echo "$h"
}
SIM="$OUT/sim"
mkdir -p "$SIM"
: >"$SIM/runs.tsv"
for round in $(seq 1 "$ROUNDS"); do
  nf="$(run_folder "$round" no-fault)"
  pa="$(run_folder "$round" pause)"
  [[ -n "$nf" && -d "$nf/steady-leaves" ]] || { say "Round $round: no measured no-fault run with leaf histograms: skipped"; continue; }
  leaves="$nf/steady-leaves"
  network_us="$(python3 "$HERE/benchmarks/sim_validation.py" network "$leaves")"
  for scenario in no-fault pause; do
    folder="$nf" phase=steady fault=()
    if [[ $scenario == pause ]]; then
      [[ -n "$pa" ]] || { say "Round $round: no measured pause run: skipped"; continue; }
      folder="$pa" phase=paused fault=(--pause-every 1s --pause 150ms --pause-leaves 1)
    fi
    read -r rate answered < <(python3 "$HERE/benchmarks/sim_validation.py" rate "$folder/summary.json" "$phase")
    queries=$(( answered * 100 / 95 )) # the simulator leaves its first 5% unmeasured
    # service: the leaf's own service time, the simulator adds queue, contention and network (the design);
    # round-trip: the root-observed round trip as the work, no network, and workers enough that the
    # simulated leaf never queues it again (the round trip holds the leaf's queue): the measured
    # sub-request as a whole, which tests the request path's composition apart from the leaf model.
    # cores: the machine as one, its cores shared by every leaf, the root and the generator; the work
    # is each leaf's CPU time per sub-request, and every process's other CPU is calibrated from the
    # busy cores the load generator measured over the phase (sim_validation.py cores): no fitted
    # constant but the loopback's own delay.
    for variant in service round-trip cores; do
      if [[ $variant == service ]]; then
        model=(--service "empirical:$leaves" --network "${network_us}us" --peer "${network_us}us" --workers "$WORKERS")
      elif [[ $variant == round-trip ]]; then
        model=(--service "empirical:$(leaf_files "$leaves" round_trip)" --network 1us --peer 1us --workers 64)
      else
        read -r -a calibrated < <(python3 "$HERE/benchmarks/sim_validation.py" cores "$nf/summary.json" steady "$leaves" "$WORKERS")
        model=("${calibrated[@]}" --network "$LOOPBACK" --peer "$LOOPBACK" --workers "$WORKERS")
        [[ -n "${hits[$round]:-}" ]] || hits[$round]="$(fit_hits "$nf" "${model[@]}")"
        model+=(--hits "${hits[$round]}")
      fi
      args=(--leaves 4 --partitions 16 --replicas 2 --contention 0 --rate "$rate"
        --queries "$queries" --policy hedged+good-enough "${model[@]}" --seed "$SEED" ${fault[@]+"${fault[@]}"})
      say "Round $round, $scenario, $variant: ./hedgerow simulate ${args[*]}"
      out="$SIM/round-$round-$scenario-$variant"
      "$HEDGEROW" simulate "${args[@]}" --json --out "$out" >"$out.json" 2>"$out.log" \
        || die "the simulation failed (see $out.log)"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$scenario" "$variant" "$folder" "$phase" "$out" "$leaves" \
        "${args[*]}" >>"$SIM/runs.tsv"
    done
  done
done
[[ -z "$LOCK" ]] || flock -u 9
[[ -s "$SIM/runs.tsv" ]] || die "nothing to replay in $OUT"
python3 "$HERE/benchmarks/sim_validation.py" table "$SIM/runs.tsv" "$(uname -srm), $(nproc) cores, $(date -u +%Y-%m-%d)" \
  >"$OUT/validation.md"
cat "$OUT/validation.md"
say "Done: $OUT/validation.md"
