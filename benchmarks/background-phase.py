#!/usr/bin/env python3
"""Synchronized against random background work on the cluster (docs/benchmarks/adaptation.md).

Round after round, each of two leaf settings on a fresh cluster over a fresh copy of the index:
  aligned  the default: live writes' refreshes (500 ms) and commits (30 s), with the flushes and
           merges they start, at whole multiples of their interval on the wall clock on every leaf
  random   --leaf-arg=--background-phase=random: each leaf at a phase of its own
measures search latency with the load generator (default request, cache off) while documents are
ingested at a steady pace, so there is background work to align. The leaves share 2 cores here, so
a leaf's background work slows the others' searches too, aligned or not: read the result with that
caveat. Writes <results>/<time>-background-phase/ with every run and background-phase.md (the load
generator's comparison: median of the rounds and their range). Run it under the shared lock:

  flock /work/cpu.lock python3 benchmarks/background-phase.py --port 18700

Ingestion starts --ingest-warmup seconds (30) before the load generator's own warm-up, so the write
path is compiled before anything is measured.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("ingestion_bench", os.path.join(HERE, "benchmarks", "ingestion-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
HEDGEROW = os.path.join(HERE, "hedgerow")


def say(started, text):
    elapsed = int(time.time() - started)
    print("[%3d:%02d] %s" % (elapsed // 60, elapsed % 60, text), flush=True)


def fresh_data(source, target):
    """A copy of the built index without its live copies, so every run starts from the same documents."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(source, "europarl"), os.path.join(target, "europarl"),
                    ignore=lambda folder, names: ["live"] if os.path.samefile(folder, os.path.join(source, "europarl")) else [])


def start_cluster(port, data, phase, log):
    env = dict(os.environ, HEDGEROW_DATA=data, HEDGEROW_WRITE_TOKEN=bench.WRITE_TOKEN)
    cluster = subprocess.Popen([HEDGEROW, "local", "--port", str(port), "--data", data, "--leaf-arg=--background-phase=" + phase],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 300
    while True:
        try:
            if bench.call("GET", "http://127.0.0.1:%d/ready" % port, timeout=2)[0] == 200:
                return cluster
        except OSError:
            pass
        if cluster.poll() is not None or time.time() > deadline:
            sys.exit("the cluster did not start; see " + log.name)
        time.sleep(0.5)


def stop_cluster(cluster, data):
    cluster.terminate()
    try:
        cluster.wait(30)
    except subprocess.TimeoutExpired:
        cluster.kill()
    subprocess.run([HEDGEROW, "local", "stop", "--data", data], capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=18700)
    ap.add_argument("--start-with", choices=("aligned", "random"), default="aligned",
                    help="the setting each round starts with (alternate it between invocations of one round each)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--search-rate", type=int, default=150, help="searches/s, open loop (default: 150)")
    # 300 docs/s next to 150 searches/s overloaded this machine (p50 56-60 ms, 9-13% refused, both settings).
    ap.add_argument("--ingest-rate", type=int, default=50, help="documents/s ingested meanwhile (default: 50)")
    ap.add_argument("--seconds", type=int, default=40, help="measured seconds per run (default: 40)")
    # Ingestion started with the measurement put the write path's JIT compilation (about a core for
    # a few tens of seconds on 4 leaves) into the measured phase, in either setting.
    ap.add_argument("--ingest-warmup", type=int, default=30,
                    help="seconds of ingestion before the load generator starts its own warm-up (default: 30)")
    ap.add_argument("--data", default=os.path.join(HERE, "data"), help="where the built europarl index is")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    args = ap.parse_args()
    out = os.path.join(args.results, time.strftime("%Y%m%d-%H%M%S") + "-background-phase")
    os.makedirs(os.path.join(out, "runs"))
    started = time.time()
    docs = bench.europarl_lines()
    base = "http://127.0.0.1:%d" % args.port
    folders = {"aligned": [], "random": []}
    for round_ in range(1, args.rounds + 1):
        for phase in (("aligned", "random") if args.start_with == "aligned" else ("random", "aligned")):
            say(started, "Round %d/%d: %s, searches at %d/s while ingesting %d docs/s"
                % (round_, args.rounds, phase, args.search_rate, args.ingest_rate))
            data = os.path.join(out, "data")
            fresh_data(args.data, data)
            with open(os.path.join(out, "cluster-%s-%d.log" % (phase, round_)), "w") as log:
                cluster = start_cluster(args.port, data, phase, log)
                try:
                    result = {}
                    ingesting = threading.Thread(target=lambda: result.update(zip(("acked", "failed", "took"), bench.ingest(
                        base, docs, args.ingest_warmup + args.seconds + 20, 4, "bg%d" % round_, args.ingest_rate))))
                    ingesting.start()
                    time.sleep(args.ingest_warmup)
                    run = subprocess.run([HEDGEROW, "loadgen", "--target", base, "--rate", str(args.search_rate),
                                          "--duration", "%ds" % args.seconds, "--warmup", "15s",
                                          "--label", phase, "--results", os.path.join(out, "runs")],
                                         capture_output=True, text=True)
                    ingesting.join()
                    with open(os.path.join(out, "loadgen-%s-%d.log" % (phase, round_)), "w") as lg:
                        lg.write(run.stdout + run.stderr)
                    folder = [line.split("Results: ", 1)[1].split(" (")[0] for line in run.stdout.splitlines()
                              if line.startswith("Results: ")]
                    if run.returncode != 0 or not folder:
                        print("  the load generator failed; see loadgen-%s-%d.log" % (phase, round_))
                    else:
                        folders[phase].append(folder[0])
                    say(started, "  ingested %d documents (%d refused) in %.0f s"
                        % (result.get("acked", 0), result.get("failed", 0), result.get("took", 0)))
                finally:
                    stop_cluster(cluster, data)
    shutil.rmtree(os.path.join(out, "data"), ignore_errors=True)
    report = os.path.join(out, "background-phase.md")
    with open(report, "w") as md:
        md.write("# Background work aligned or at random phases: measured %s\n\n" % time.strftime("%Y-%m-%d", time.gmtime()))
        md.write("- Command: `benchmarks/background-phase.py --rounds %d --search-rate %d --ingest-rate %d --seconds %d"
                 " --ingest-warmup %d` (`./hedgerow local`, defaults but `--leaf-arg=--background-phase=random` in random).\n\n"
                 % (args.rounds, args.search_rate, args.ingest_rate, args.seconds, args.ingest_warmup))
        for phase, runs in folders.items():
            if runs:
                compare = subprocess.run([HEDGEROW, "loadgen", "compare", "--spread", "--label", phase,
                                          "--results", os.path.join(out, "compare")] + runs, capture_output=True, text=True)
                md.write("## %s\n\n" % phase)
                md.write("\n".join(l for l in compare.stdout.splitlines() if not l.startswith("Comparison: ")) + "\n\n")
    print(open(report).read())
    say(started, "Done. Report: " + report)


if __name__ == "__main__":
    main()
