#!/usr/bin/env python3
"""The tables of benchmarks/time-slicing.sh, from its runs.tsv (setting, round, run, results folder,
CPU busy %) and each run's summary.json: every run, then each figure as the median of the rounds
with their range, and the issue's targets against them.

Usage: time-slicing-tables.py RUNS_TSV CHEAP_RATE EXPENSIVE_RATE
"""
import json
import os
import statistics
import sys


def figures(folder):
    """The first phase's figures of one run, or None when it has no summary."""
    path = os.path.join(folder, "summary.json") if folder else ""
    if not folder or not os.path.isfile(path):
        return None
    phase = json.load(open(path))["phases"][0]
    answered = phase["latency_ms"]["answered"]
    return {
        "achieved": phase["achieved_rate"],
        "goodput": phase["goodput_per_s"],
        "p50": answered.get("p50"),
        "p99": answered.get("p99"),
        "p99_9": answered.get("p99_9"),
        "max": answered.get("max"),
        "errors": phase["errors"],
        "supports": answered.get("supports", []),
        "count": answered.get("count", 0),
    }


def fmt(value, digits=1):
    return "n/a" if value is None else f"{value:.{digits}f}"


def spread(values, digits=1):
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    median = statistics.median(values)
    if len(values) == 1:
        return fmt(median, digits)
    return f"{fmt(median, digits)} [{fmt(min(values), digits)}-{fmt(max(values), digits)}]"


def main():
    tsv, cheap_rate, expensive_rate = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = {}
    for line in open(tsv):
        setting, round_, run, folder, cpu = line.rstrip("\n").split("\t")
        f = figures(folder)
        if f is not None:
            f["cpu"] = None if cpu in ("", "-") else float(cpu)
        runs[(setting, int(round_), run)] = f
    settings = [s for s in ("on", "off") if any(k[0] == s for k in runs)]
    rounds = sorted({k[1] for k in runs})

    def values(setting, run, key):
        return [runs[(setting, r, run)][key] for r in rounds
                if runs.get((setting, r, run)) is not None and runs[(setting, r, run)][key] is not None]

    def med(setting, run, key):
        v = values(setting, run, key)
        return statistics.median(v) if v else None

    def ratios(setting_a, run_a, setting_b, run_b, key):
        out = []
        for r in rounds:
            a, b = runs.get((setting_a, r, run_a)), runs.get((setting_b, r, run_b))
            if a and b and a[key] and b[key]:
                out.append(a[key] / b[key])
        return out

    print("Every run (latency in ms from each request's intended start; a percentile marked ~ where the run's")
    print("sample cannot support it; CPU: the whole machine's busy share during the phase):")
    print()
    print("| leaves | round | run | achieved/s | goodput/s | p50 | p99 | p99.9 | max | errors | CPU busy % |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    order = ["cheap-only", "mixed", "mixed-expensive", "throughput", "batch-alone", "with-batch", "batch"]
    for setting in settings:
        for r in rounds:
            for run in order:
                f = runs.get((setting, r, run))
                if (setting, r, run) not in runs:
                    continue
                if f is None:
                    print(f"| {setting} | {r} | {run} | n/a | | | | | | | |")
                    continue
                p99 = fmt(f["p99"], 2) + ("" if "p99" in f["supports"] else " ~")
                p999 = fmt(f["p99_9"], 2) + ("" if "p99_9" in f["supports"] else " ~")
                cpu = "" if f.get("cpu") is None else f"{f['cpu']:.0f}"
                print(f"| {setting} | {r} | {run} | {f['achieved']:.0f} | {f['goodput']:.0f} | {fmt(f['p50'], 2)} | {p99} "
                      f"| {p999} | {fmt(f['max'], 2)} | {f['errors']} | {cpu} |")
    print()
    print(f"Medians of {len(rounds)} round(s) [range]. Cheap queries at {cheap_rate} req/s; expensive at "
          f"{expensive_rate} req/s in the mixed runs:")
    print()
    print("| leaves | cheap-only p99 | mixed: cheap p99 | mixed: cheap p50 | mixed: expensive p50 | mixed: expensive p99 "
          "| CPU busy %, mixed | throughput req/s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for setting in settings:
        print(f"| {setting} | {spread(values(setting, 'cheap-only', 'p99'), 2)} | {spread(values(setting, 'mixed', 'p99'), 2)} "
              f"| {spread(values(setting, 'mixed', 'p50'), 2)} | {spread(values(setting, 'mixed-expensive', 'p50'), 1)} "
              f"| {spread(values(setting, 'mixed-expensive', 'p99'), 1)} | {spread(values(setting, 'mixed', 'cpu'), 0)} "
              f"| {spread(values(setting, 'throughput', 'goodput'), 0)} |")
    print()
    print("Against the targets (each ratio computed per round, median [range]):")
    print()
    print("| what | target | measured | met |")
    print("| --- | --- | --- | --- |")

    def target(what, goal, measured, ok):
        verdict = "n/a" if ok is None else ("yes" if ok else "**no**")
        print(f"| {what} | {goal} | {measured} | {verdict} |")

    # Against a cheap query alone (the cheap-only baseline), with the leaves off: each query runs to
    # its end at once, so the ratio is of their service times.
    cost = (ratios("off", "mixed-expensive", "off", "cheap-only", "p50")
            or ratios("on", "mixed-expensive", "on", "cheap-only", "p50"))
    target("expensive query vs a cheap one alone, p50 latency ratio (leaves off)", "30-100x",
           spread(cost, 0) + "x" if cost else "n/a", None if not cost else 30 <= statistics.median(cost) <= 100)
    hostage = ratios("on", "mixed", "on", "cheap-only", "p99")
    target("cheap p99 with expensive / cheap-only p99, leaves on", "<= 1.5x",
           spread(hostage, 2) + "x" if hostage else "n/a", None if not hostage else statistics.median(hostage) <= 1.5)
    better = ratios("off", "mixed", "on", "mixed", "p99")
    target("cheap p99 with expensive: off / on", ">= 5x",
           spread(better, 1) + "x" if better else "n/a", None if not better else statistics.median(better) >= 5)
    busy = values("on", "mixed", "cpu") + values("off", "mixed", "cpu")
    target("CPU busy during the mixed runs", "<= ~60%", spread(busy, 0) + "%" if busy else "n/a",
           None if not busy else statistics.median(busy) <= 60)
    on_t, off_t = values("on", "throughput", "goodput"), values("off", "throughput", "goodput")
    if on_t and off_t:
        loss = 100 * (1 - statistics.median(on_t) / statistics.median(off_t))
        # Shown beyond the spread: even the worst pairing (the lowest "on" run against the highest
        # "off" one) loses under 10%.
        worst = 100 * (1 - min(on_t) / max(off_t))
        target("throughput loss, on vs off", "< 10%, beyond the spread",
               f"{loss:.1f}% of the medians (on {spread(on_t, 0)}, off {spread(off_t, 0)}); worst pairing "
               f"{worst:.1f}%", worst < 10)
    priority = ratios("on", "with-batch", "on", "cheap-only", "p99")
    target("interactive p99 next to batch / interactive alone", "<= 2x",
           spread(priority, 2) + "x" if priority else "n/a", None if not priority else statistics.median(priority) <= 2)
    batch = ratios("on", "batch", "on", "batch-alone", "goodput")
    target("batch completed next to interactive / batch alone", ">= 0.5",
           spread(batch, 2) if batch else "n/a", None if not batch else statistics.median(batch) >= 0.5)
    # For comparison, not targets: the same with lanes, slices and the root's batch admission off.
    priority_off = ratios("off", "with-batch", "off", "cheap-only", "p99")
    target("(off) interactive p99 next to batch / interactive alone", "for comparison",
           spread(priority_off, 2) + "x" if priority_off else "n/a", None)
    batch_off = ratios("off", "batch", "off", "batch-alone", "goodput")
    target("(off) batch completed next to interactive / batch alone", "for comparison",
           spread(batch_off, 2) if batch_off else "n/a", None)


if __name__ == "__main__":
    main()
