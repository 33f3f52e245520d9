#!/usr/bin/env python3
"""Helpers of benchmarks/sim-validation.sh (not run alone).

  network DIR          one-way network delay in us: half of (round trip - queue - service) at the
                       median, from a <phase>-leaves/ folder's merged all-search-*.hgrm files
  rate SUMMARY PHASE   the phase's achieved rate and its answered count, from a load run's summary.json
  cores SUMMARY PHASE DIR CORES
                       the shared-cores replay's flags, calibrated from the phase's CPU (summary.json's
                       root.cpu_cores) and its <phase>-leaves/ folder DIR: each leaf's search and fetch
                       CPU times as the work, and the CPU per message of the root,
                       per sub-request of the leaves (beyond their workers' CPU time) and per search of
                       the generator
  fetches DIR SEARCHES fetches per search of a measured phase, from its <phase>-leaves/ folder DIR
  table RUNS MACHINE   the validation table (Markdown) from the script's runs.tsv
"""
import glob
import json
import os
import random
import statistics
import sys


def percentiles(path):
    """(quantile, value_ms) rows of an HdrHistogram percentile file, as the simulator reads them."""
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3 or not fields[0][0].isdigit():
                continue
            value, q = float(fields[0]), float(fields[1])
            if rows and q <= rows[-1][0]:
                rows[-1] = (rows[-1][0], max(rows[-1][1], value))
                continue
            rows.append((q, value))
    if not rows:
        raise SystemExit(f"{path}: no percentile rows")
    if rows[0][0] > 0:
        rows.insert(0, (0.0, rows[0][1]))
    if rows[-1][0] < 1:
        rows.append((1.0, rows[-1][1]))
    return rows


def at(rows, u):
    lo, hi = 0, len(rows) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if rows[mid][0] <= u:
            lo = mid
        else:
            hi = mid
    span = rows[hi][0] - rows[lo][0]
    along = 0 if span <= 0 else (u - rows[lo][0]) / span
    return rows[lo][1] + along * (rows[hi][1] - rows[lo][1])


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def network(folder):
    p50 = {part: at(percentiles(os.path.join(folder, f"all-search-{part}.hgrm")), 0.5)
           for part in ("round_trip", "queue", "service")}
    print(max(1, round((p50["round_trip"] - p50["queue"] - p50["service"]) / 2 * 1000)))


def phase_of(summary_file, name):
    with open(summary_file) as f:
        summary = json.load(f)
    for phase in summary["phases"]:
        if phase["name"] == name:
            return phase
    raise SystemExit(f"{summary_file}: no phase '{name}'")


def rate(summary_file, name):
    phase = phase_of(summary_file, name)
    print(f"{phase['achieved_rate']:.1f} {phase['latency_ms']['answered']['count']}")


def mean(path):
    """The mean in ms of a percentile file's distribution (its quantile function integrated)."""
    rows = percentiles(path)
    steps = 20_000
    return sum(at(rows, (i + 0.5) / steps) for i in range(steps)) / steps


def leaf_files(folder, phase, part):
    return sorted(glob.glob(os.path.join(folder, f"leaf-*-{phase}-{part}.hgrm")),
                  key=lambda f: int(os.path.basename(f).split("-")[1]))


def cores(summary_file, name, folder, cores_):
    """Flags of `simulate --cores` for one measured phase. The phase's busy cores (machine, generator,
    root, and the rest: the leaves) over its length give each process's CPU per unit of work: the
    generator's per search, the root's per message it handles (the HTTP request and answer, and each
    search and fetch sub-request out and its answer back), and the leaves' beyond their workers' reported
    CPU time per sub-request (reading and writing frames, event loops, garbage collection)."""
    phase = phase_of(summary_file, name)
    cpu = ((phase.get("root") or {}).get("cpu_cores")) or {}
    if any(cpu.get(k) is None for k in ("generator", "root", "others")):
        raise SystemExit(f"{summary_file}: phase '{name}' has no root.cpu_cores (a load generator before 2efbd36?)")
    searches = phase["latency_ms"]["answered"]["count"]
    seconds = searches / phase["achieved_rate"]
    work_ms = 0.0
    sub_requests = {}
    for kind in ("search", "fetch"):
        files = leaf_files(folder, kind, "cpu")
        if not files:
            raise SystemExit(f"{folder}: no leaf-N-{kind}-cpu.hgrm (a root before leaves reported CPU time?)")
        counts = [total_count(f) for f in leaf_files(folder, kind, "service")]
        sub_requests[kind] = sum(counts)
        work_ms += sum(total_count(f) * mean(f) for f in files)
    messages = 2 * searches + 2 * (sub_requests["search"] + sub_requests["fetch"])
    root_us = cpu["root"] * seconds / messages * 1e6
    leaf_us = max(0.0, (cpu["others"] * seconds - work_ms / 1e3) / (sub_requests["search"] + sub_requests["fetch"]) * 1e6)
    client_us = cpu["generator"] * seconds / searches * 1e6
    flags = ["--cores", str(cores_),
             "--service", "empirical:" + ",".join(leaf_files(folder, "search", "cpu")),
             "--fetch-service", "empirical:" + ",".join(leaf_files(folder, "fetch", "cpu")),
             "--root-cpu", f"{root_us:.1f}us", "--leaf-cpu", f"{leaf_us:.1f}us", "--client-cpu", f"{client_us:.1f}us"]
    print(" ".join(flags))


def fetches(folder, searches):
    """Fetches per search the measured run sent (every leaf's fetch answers over its searches)."""
    print(f"{sum(total_count(f) for f in leaf_files(folder, 'fetch', 'service')) / int(searches):.4f}")


def sim_summary(folder):
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    return summary[0] if isinstance(summary, list) else summary


def total_count(path):
    with open(path) as f:
        for line in f:
            if "Total count" in line:
                return int(line.split("Total count")[1].split("=")[1].split("]")[0])
    raise SystemExit(f"{path}: no total count")


def with_fetch(sim_folder, leaves_folder, searches, samples=100_000, seed=1):
    """The simulated search latency plus a fetch phase drawn from the measured fetch round trips:
    the slowest of as many independent draws as the measured run sent fetches per search (on
    average; each search floor or ceiling of it). p50, p99, p99.9 in ms."""
    search = percentiles(glob.glob(os.path.join(sim_folder, "run*.hgrm"))[0])
    fetch_file = os.path.join(leaves_folder, "all-fetch-round_trip.hgrm")
    fetch = percentiles(fetch_file)
    per_search = total_count(fetch_file) / searches
    whole, part = int(per_search), per_search - int(per_search)
    rng = random.Random(seed)
    total = []
    for _ in range(samples):
        k = max(1, whole + (1 if rng.random() < part else 0))
        total.append(at(search, rng.random()) + max(at(fetch, rng.random()) for _ in range(k)))
    total.sort()
    return [total[min(samples - 1, int(q * samples))] for q in (0.5, 0.99, 0.999)], per_search


def spread(values):
    return f"{statistics.median(values):.3g} [{min(values):.3g}-{max(values):.3g}]"


def no_fault_count(runs_file, round_):
    """Searches answered in the round's no-fault phase, whose leaves' fetch files are replayed."""
    with open(runs_file) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == round_ and fields[1] == "no-fault":
                return phase_of(os.path.join(fields[3], "summary.json"), fields[4])["latency_ms"]["answered"]["count"]
    raise SystemExit(f"{runs_file}: no no-fault run in round {round_}")


def table(runs_file, machine):
    rows = {}  # (scenario, variant) -> runs
    measured_runs = {}  # scenario -> {round: measured}
    with open(runs_file) as f:
        for line in f:
            round_, scenario, variant, folder, phase, sim_folder, leaves, args = line.rstrip("\n").split("\t")
            measured = phase_of(os.path.join(folder, "summary.json"), phase)
            answered = measured["latency_ms"]["answered"]
            root = (measured.get("root") or {}).get("latency_ms") or {}
            sim = sim_summary(sim_folder)
            measured_runs.setdefault(scenario, {})[round_] = {
                "folder": folder, "count": answered["count"],
                "latency": [answered["p50"], answered["p99"], answered["p99_9"]],
                "root_p99": (root.get("answered") or {}).get("p99"),
                "extra": (measured.get("root") or {}).get("extra_leaf_requests_pct"),
            }
            rows.setdefault((scenario, variant), []).append({
                "round": round_, "args": args,
                "sim": [sim["p50_ms"], sim["p99_ms"], sim["p999_ms"]],
                "sim_fetch": None if variant == "cores" else with_fetch(sim_folder, leaves, no_fault_count(runs_file, round_))[0],
                "extra": sim.get("extra_requests"),
            })
    out = [f"# Simulator against the local cluster: {machine}", "",
           "Latency in ms, the median of the runs [min-max]. measured: the load generator's answers (from each "
           "request's intended start, HTTP and the fetch phase included). Simulated, `./hedgerow simulate` replaying "
           "each run's leaves (service and round-trip: the query phase only): *service*, the leaves' own "
           "service times (the simulator adds queue, workers and network); *round-trip*, the root-observed "
           "sub-request round trips as the work, no network, 64 workers a leaf (never queued again); *cores*, the machine's "
           "cores shared by leaves, root and generator, the leaves' CPU times as the work, each process's other CPU "
           "calibrated from the phase's busy cores, the fetch phase simulated. *+ fetch*: each simulated search plus the slowest of "
           "as many draws of the measured fetch round trip as the run sent fetches per search.", "",
           "| scenario | | p50 | p99 | p99.9 | p99 within 20% | p99.9 within the measured range |",
           "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    for scenario, by_round in measured_runs.items():
        m = [[r["latency"][i] for r in by_round.values()] for i in range(3)]
        lo, hi, med99 = min(m[2]), max(m[2]), statistics.median(m[1])
        out.append(f"| {scenario} | measured, {len(by_round)} runs | {spread(m[0])} | {spread(m[1])} | {spread(m[2])} | | |")
        for (sc, variant), runs in rows.items():
            if sc != scenario:
                continue
            # The cores variant simulates its fetch phase: nothing to add after the fact.
            for key, suffix in (("sim", ""),) if variant == "cores" else (("sim", ""), ("sim_fetch", " + fetch")):
                s = [[r[key][i] for r in runs] for i in range(3)]
                p99, p999 = statistics.median(s[1]), statistics.median(s[2])
                off = (p99 - med99) / med99 * 100
                ok99 = "**yes**" if abs(off) <= 20 else "no"
                ok999 = "**yes**" if lo <= p999 <= hi else "no"
                out.append(f"| {scenario} | simulated {variant}{suffix} | {spread(s[0])} | {spread(s[1])} | {spread(s[2])} "
                           f"| {ok99} ({off:+.0f}%) | {ok999} ({p999:.3g}) |")
    out += ["", "Per run (p50 / p99 / p99.9 ms):", "",
            "| scenario | round | answers | measured | root's own p99 | extra sub-requests | simulated | | extra sub-requests |",
            "| --- | ---: | ---: | --- | ---: | ---: | --- | --- | ---: |"]
    fmt = lambda v: " / ".join(f"{x:.3g}" for x in v)
    for (scenario, variant), runs in rows.items():
        for r in runs:
            m = measured_runs[scenario][r["round"]]
            extra_m = "?" if m["extra"] is None else f"{m['extra']:.1f}%"
            extra_s = "?" if r["extra"] is None else f"{r['extra'] * 100:.1f}%"
            root_p99 = "?" if m["root_p99"] is None else f"{m['root_p99']:.3g}"
            fetched = "fetch simulated" if r["sim_fetch"] is None else f"+ fetch: {fmt(r['sim_fetch'])}"
            out.append(f"| {scenario} | {r['round']} | {m['count']:,} | {fmt(m['latency'])} | {root_p99} | {extra_m} | "
                       f"{variant}: {fmt(r['sim'])} | {fetched} | {extra_s} |")
    out += ["", "Commands (per run):", ""]
    for (scenario, variant), runs in rows.items():
        for r in runs:
            out.append(f"- {scenario} round {r['round']}, {variant}: measured `{measured_runs[scenario][r['round']]['folder']}`;"
                       f" `./hedgerow simulate {r['args']}`")
    print("\n".join(out))


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "network":
        network(sys.argv[2])
    elif command == "rate":
        rate(sys.argv[2], sys.argv[3])
    elif command == "cores":
        cores(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif command == "fetches":
        fetches(sys.argv[2], sys.argv[3])
    elif command == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
