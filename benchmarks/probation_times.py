#!/usr/bin/env python3
"""When the slowed leaf went on probation and came back, in each tail-suite folder given.

Reads the slow-leaf run's summary.json (the instants its delay fault was injected and cleared) and
the suite's cluster log (the root's "leaf N goes on probation" and "leaf N is back in rotation"
lines, local time of day), and prints a Markdown table: seconds from the fault's start to probation,
from its end to the return, and how many times the leaf went on probation. Used by
benchmarks/adaptation.sh.
"""
import datetime as dt
import glob
import json
import os
import re
import sys

LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) \S+ io\.hedgerow\.root\.adapt\.Probation: leaf (\d+) "
                  r"(goes on probation|is back in rotation)")


def fault_times(summary, leaf):
    """(inject, clear) datetimes of the slowed phase's delay fault on `leaf`, or None."""
    for phase in summary["phases"]:
        if phase["name"] != "slowed":
            continue
        inject = clear = None
        for event in phase.get("faults", []):
            if event["fault"] != "delay" or event["leaf"] != leaf:
                continue
            at = dt.datetime.fromisoformat(event["at"][:26].rstrip("Z")).replace(tzinfo=dt.timezone.utc)
            if event["action"] == "inject" and event["outcome"] == "APPLIED" and inject is None:
                inject = at
            elif event["action"] == "clear" and event["outcome"] == "UNDONE":
                clear = at
        return inject, clear
    return None


def transitions(log, day, leaf):
    """[(datetime, 'on'|'off')] for `leaf` in the cluster log, the day's time of day in local time."""
    found = []
    tz = dt.datetime.now().astimezone().tzinfo
    with open(log, errors="replace") as lines:
        for line in lines:
            m = LINE.match(line)
            if m and int(m.group(5)) == leaf:
                h, mi, s, ms = (int(g) for g in m.groups()[:4])
                at = dt.datetime.combine(day, dt.time(h, mi, s, ms * 1000), tz).astimezone(dt.timezone.utc)
                found.append((at, "on" if m.group(6) == "goes on probation" else "off"))
    return found


def main(folders, leaf=1):
    print("| run | probation after the fault began | back in rotation after it ended | times on probation |")
    print("| --- | ---: | ---: | ---: |")
    for folder in folders:
        runs = sorted(glob.glob(os.path.join(folder, "runs", "*-slow-leaf", "summary.json")))
        logs = sorted(glob.glob(os.path.join(folder, "cluster-*.log")))
        if not runs or not logs:
            continue
        times = fault_times(json.load(open(runs[0])), leaf)
        name = os.path.basename(os.path.normpath(folder))
        if not times or times[0] is None:
            print(f"| {name} | fault not applied | | |")
            continue
        inject, clear = times
        events = [e for log in logs for e in transitions(log, inject.date(), leaf)]
        on = [at for at, kind in events if kind == "on" and at >= inject]
        off = [at for at, kind in events if kind == "off" and clear and at >= clear]
        entered = f"{(on[0] - inject).total_seconds():.1f} s" if on else "never"
        back = f"{(off[0] - clear).total_seconds():.1f} s" if off and on else ("never" if on else "")
        print(f"| {name} | {entered} | {back} | {len(on)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
