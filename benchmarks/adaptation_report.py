#!/usr/bin/env python3
"""What the root did in benchmarks/adaptation.sh's runs: probation times and routing around a pause.

  adaptation_report.py poll URL FILE     every 50 ms, appends "<epoch ms> <answers of each leaf>" from
                                         URL/cluster to FILE, until killed
  adaptation_report.py report SUITE...   Markdown tables for the tail-suite folders given:
    - slow-leaf: seconds from the delay fault's start to leaf 1 going on probation, and from its end
      to its return (the root's "leaf N goes on probation" / "is back in rotation" log lines, local
      time of day, against the fault's instants in the run's summary.json);
    - long-pause: for each 2 s SIGSTOP of leaf 1, the sub-requests the root sent it while it was
      stopped, against what its share of the traffic would have been. A stopped leaf answers nothing
      and, once continued, answers everything it holds, so: its answers from the stop to 0.5 s after
      the continue, less 0.5 s of its normal answer rate (measured over the 2 s before the stop).
"""
import datetime as dt
import glob
import json
import os
import re
import sys
import time
import urllib.request

LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) \S+ io\.hedgerow\.root\.adapt\.Probation: leaf (\d+) "
                  r"(goes on probation|is back in rotation)")
LEAF = 1
AFTER_RESUME_S = 0.5


def instant(text):
    return dt.datetime.fromisoformat(text[:26].rstrip("Z")).replace(tzinfo=dt.timezone.utc)


def phase_events(summary, phase_name, fault):
    for phase in summary["phases"]:
        if phase["name"] == phase_name:
            return [e for e in phase.get("faults", []) if e["fault"] == fault and e["leaf"] == LEAF]
    return []


def poll(url, path):
    with open(path, "a") as out:
        while True:
            try:
                with urllib.request.urlopen(url + "/cluster", timeout=1) as answer:
                    leaves = json.load(answer)["leaves"]
                out.write("%d %s\n" % (time.time() * 1000, " ".join(str(l["sub_requests"]) for l in leaves)))
                out.flush()
            except OSError:
                pass
            time.sleep(0.05)


def probation_row(folder, name):
    runs = sorted(glob.glob(os.path.join(folder, "runs", "*-slow-leaf", "summary.json")))
    logs = sorted(glob.glob(os.path.join(folder, "cluster-*.log")))
    if not runs or not logs:
        return None
    events = phase_events(json.load(open(runs[0])), "slowed", "delay")
    inject = next((instant(e["at"]) for e in events if e["action"] == "inject" and e["outcome"] == "APPLIED"), None)
    clear = next((instant(e["at"]) for e in events if e["action"] == "clear" and e["outcome"] == "UNDONE"), None)
    if inject is None:
        return "| %s | fault not applied | | |" % name
    tz = dt.datetime.now().astimezone().tzinfo
    found = []
    for log in logs:
        for line in open(log, errors="replace"):
            m = LINE.match(line)
            if m and int(m.group(5)) == LEAF:
                h, mi, s, ms = (int(g) for g in m.groups()[:4])
                at = dt.datetime.combine(inject.date(), dt.time(h, mi, s, ms * 1000), tz).astimezone(dt.timezone.utc)
                found.append((at, m.group(6) == "goes on probation"))
    on = [at for at, entering in found if entering and at >= inject]
    off = [at for at, entering in found if not entering and clear and at >= clear]
    entered = "%.1f s" % (on[0] - inject).total_seconds() if on else "never"
    back = ("%.1f s" % (off[0] - clear).total_seconds() if off else "never") if on else ""
    return "| %s | %s | %s | %d |" % (name, entered, back, len(on))


def pause_rows(folder, name):
    runs = sorted(glob.glob(os.path.join(folder, "runs", "*-long-pause", "summary.json")))
    polls = os.path.join(folder, "answers.log")
    if not runs or not os.path.exists(polls):
        return []
    samples = []
    for line in open(polls):
        fields = line.split()
        if len(fields) > LEAF + 1:
            samples.append((int(fields[0]) / 1000, int(fields[LEAF + 1])))

    def answers_at(t):  # the last sample at or before t
        before = [count for at, count in samples if at <= t]
        return before[-1] if before else None

    events = phase_events(json.load(open(runs[0])), "paused", "pause")
    stops = [instant(e["at"]).timestamp() for e in events if e["action"] == "pause" and e["outcome"] == "APPLIED"]
    conts = [instant(e["at"]).timestamp() for e in events if e["action"] == "resume" and e["outcome"] == "UNDONE"]
    rows = []
    for stop, cont in zip(stops, conts):
        a0, a1, a2 = answers_at(stop - 2), answers_at(stop), answers_at(cont + AFTER_RESUME_S)
        if None in (a0, a1, a2):
            continue
        rate = (a1 - a0) / 2
        sent = max(0, (a2 - a1) - rate * AFTER_RESUME_S)
        share = rate * (cont - stop)
        rows.append("| %s | %.2f s | %.0f/s | %.0f | %.0f | %.1f%% |" % (name, cont - stop, rate, share, sent,
                                                                       100 * sent / share if share else 0))
    return rows


def report(folders):
    print("Probation of leaf 1 in slow-leaf:")
    print()
    print("| run | probation after the fault began | back in rotation after it ended | times on probation |")
    print("| --- | ---: | ---: | ---: |")
    for folder in folders:
        row = probation_row(folder, os.path.basename(os.path.normpath(folder)))
        if row:
            print(row)
    print()
    print("Sub-requests sent to leaf 1 while it was stopped in long-pause (estimated from its answers, see")
    print("benchmarks/adaptation_report.py):")
    print()
    print("| run | stopped for | its answers/s before | its share of the stop | sent to it | share sent |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for folder in folders:
        for row in pause_rows(folder, os.path.basename(os.path.normpath(folder))):
            print(row)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "poll":
        poll(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 2 and sys.argv[1] == "report":
        report(sys.argv[2:])
    else:
        sys.exit(__doc__)
