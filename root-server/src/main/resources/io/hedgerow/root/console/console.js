// The Hedgerow console: plain JavaScript, no build step, no library. Every text the server sends
// reaches the page as a text node (textContent), never as markup: the snippet's <b> highlights are
// rebuilt as elements from the text around them.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const params = new URLSearchParams(location.search);
  // How often the charts and the cluster map poll (ms); ?poll_ms= lets a test poll faster.
  const POLL_MS = Math.max(250, Number(params.get("poll_ms")) || 2000);
  const CLUSTER_POLL_MS = Math.max(POLL_MS, 5000);
  const WINDOW_MS = 10 * 60 * 1000; // the charts show the last ten minutes

  /** An HTML element; string children become text nodes. */
  function el(tag, attrs, ...children) {
    return fill(document.createElement(tag), attrs, children);
  }

  /** An SVG element; string children become text nodes. */
  function svg(tag, attrs, ...children) {
    return fill(document.createElementNS(SVG, tag), attrs, children);
  }

  /** The node with its attributes and its children (nulls left out, strings and numbers as text). */
  function fill(node, attrs, children) {
    setAttrs(node, attrs);
    node.append(...present(...children).map(c => typeof c === "object" ? c : String(c)));
    return node;
  }

  /** The nodes given, without the nulls of optional ones. */
  function present(...nodes) {
    return nodes.filter(node => node !== null && node !== undefined);
  }

  function setAttrs(node, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, String(value));
      }
    }
  }

  function fmt(value, digits) {
    if (value === null || value === undefined || Number.isNaN(value)) {
      return "–";
    }
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 2 : digits });
  }

  async function getJson(url, init) {
    const response = await fetch(url, Object.assign({ headers: { "Accept": "application/json" }, cache: "no-store" }, init));
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = { error: "not_json", detail: "HTTP " + response.status + " with a body that is not JSON" };
    }
    return { status: response.status, body: body };
  }

  // ---------------------------------------------------------------- search

  const form = document.getElementById("search-form");
  const summary = document.getElementById("result-summary");
  const hitsList = document.getElementById("hits");
  const errorsList = document.getElementById("errors");
  const explainPanel = document.getElementById("explain-panel");

  form.addEventListener("submit", event => {
    event.preventDefault();
    search().catch(e => showFailure("the search could not be sent: " + e));
  });

  // POST, so a long query is not limited by the request line's 4,096 bytes.
  async function search() {
    const request = { query: document.getElementById("q").value, k: Number(document.getElementById("k").value || 10) };
    const explain = document.getElementById("explain").checked;
    if (explain) {
      request.explain = true;
    }
    const { status, body } = await getJson("/search", {
      method: "POST", body: JSON.stringify(request),
      headers: { "Accept": "application/json", "Content-Type": "application/json" }
    });
    if (status !== 200) {
      showFailure((body && body.error ? body.error + ": " : "HTTP " + status + ": ") + (body && body.detail ? body.detail : ""));
      return;
    }
    showResult(body, explain);
  }

  function showFailure(text) {
    summary.hidden = false;
    summary.replaceChildren(el("span", { class: "badge tainted", id: "search-error" }, "error"), el("span", null, text));
    hitsList.replaceChildren();
    errorsList.replaceChildren();
    explainPanel.hidden = true;
  }

  function showResult(result, explain) {
    const coverage = result.coverage || {};
    const total = result.total_hits || {};
    summary.hidden = false;
    summary.replaceChildren(...present(
      el("span", { id: "total-hits" }, (total.relation === "gte" ? "≥ " : "") + fmt(total.value, 0) + " hits"),
      el("span", { id: "coverage" }, "coverage " + coverage.partitions_answered + "/" + coverage.partitions_total
        + " partitions, " + fmt(100 * coverage.docs_fraction, 2) + "% of documents"),
      el("span", { id: "tainted", class: "badge " + (result.tainted ? "tainted" : "complete") },
        result.tainted ? "tainted" : "complete"),
      result.degraded ? el("span", { class: "badge degraded", title: (coverage.degraded || []).join(", ") }, "degraded") : null,
      el("span", { class: "muted" }, fmt(result.took_ms, 3) + " ms, cache " + result.cache),
      el("span", { class: "muted" }, "request " + result.request_id)));
    errorsList.replaceChildren(...(result.errors || []).map(error => el("li", null,
      "partition " + error.partition + ": " + error.kind + (error.leaf ? " at " + error.leaf : "") + " (" + error.detail + ")")));
    hitsList.replaceChildren(...(result.hits || []).map(hitItem));
    if (explain && result.trace) {
      explainPanel.hidden = false;
      drawTimeline(result.trace, result.took_ms);
      drawLeaves(result.leaves || []);
    } else {
      explainPanel.hidden = true;
    }
  }

  function hitItem(hit) {
    const fields = hit.fields || {};
    const title = fields.title !== undefined ? fields.title
      : Object.entries(fields).map(([name, value]) => name + ": " + value).join(", ");
    return el("li", { class: "hit", "data-id": hit.id },
      el("span", { class: "hit-id" }, hit.id),
      el("span", { class: "hit-score" }, "score " + fmt(hit.score, 4) + ", partition " + hit.partition),
      title ? el("span", { class: "hit-title" }, title) : null,
      hit.snippet !== undefined ? snippet(hit.snippet) : null);
  }

  /** The four entities a snippet's text comes with (the leaves escape & < > "), back to their characters. */
  function unescapeHtml(text) {
    return text.replace(/&(amp|lt|gt|quot);/g, (_, name) => ({ amp: "&", lt: "<", gt: ">", quot: "\"" })[name]);
  }

  /**
   * The snippet as text nodes, its <b>…</b> highlights as <b> elements: nothing else is markup. The
   * snippet is HTML whose only tags are the highlights; its text is decoded and appended as text,
   * so a document's own markup shows as the characters it is made of.
   */
  function snippet(html) {
    const node = el("div", { class: "hit-snippet" });
    let bold = false;
    for (const part of String(html).split(/(<b>|<\/b>)/)) {
      if (part === "<b>") {
        bold = true;
      } else if (part === "</b>") {
        bold = false;
      } else if (part) {
        const text = unescapeHtml(part);
        node.append(bold ? el("b", null, text) : document.createTextNode(text));
      }
    }
    return node;
  }

  // -------------------------------------------------------------- timeline

  const KINDS = ["canary", "primary", "retry", "backup", "twin", "fetch", "fetch_backup", "fetch_retry"];

  function drawTimeline(trace, tookMs) {
    const legend = document.getElementById("timeline-legend");
    const used = new Set(trace.map(t => t.kind));
    legend.replaceChildren(...KINDS.filter(k => used.has(k)).map(k =>
      el("span", null, el("span", { class: "swatch kind-" + k }), k)),
      el("span", { class: "muted" }, "faded: answer not used; dashed red outline: cancelled by the root"));

    // One row per partition, then one per fetch (a fetch goes to a leaf and may span partitions).
    const rows = new Map();
    for (const t of trace) {
      const key = t.partition === undefined ? "fetch " + t.leaf : "partition " + t.partition;
      if (!rows.has(key)) {
        rows.set(key, { key: key, partition: t.partition, items: [] });
      }
      rows.get(key).items.push(t);
    }
    const ordered = [...rows.values()].sort((a, b) =>
      (a.partition === undefined) - (b.partition === undefined) || (a.partition || 0) - (b.partition || 0)
      || a.key.localeCompare(b.key));

    const end = Math.max(tookMs || 0, ...trace.map(t => t.answered_ms === undefined ? t.sent_ms : t.answered_ms), 0.001);
    const width = 900, left = 190, right = 20, rowHeight = 22, top = 24;
    const height = top + ordered.length * rowHeight + 8;
    const x = ms => left + (width - left - right) * ms / end;
    const timeline = document.getElementById("timeline");
    timeline.setAttribute("viewBox", "0 0 " + width + " " + height);
    const nodes = [];
    for (const tick of ticks(end, 6)) {
      nodes.push(svg("line", { class: "axis", x1: x(tick), x2: x(tick), y1: top - 6, y2: height - 4 }));
      nodes.push(svg("text", { x: x(tick), y: top - 10, "text-anchor": "middle" }, fmt(tick, 3) + " ms"));
    }
    ordered.forEach((row, i) => {
      const y = top + i * rowHeight;
      nodes.push(svg("text", { x: 4, y: y + 14 }, row.key));
      const lanes = row.items.length;
      row.items.forEach((t, lane) => {
        const stop = t.answered_ms === undefined ? end : t.answered_ms;
        const laneHeight = (rowHeight - 6) / lanes;
        const classes = ["bar", "kind-" + t.kind, t.used ? "used" : "unused", t.cancelled ? "cancelled" : ""].join(" ");
        nodes.push(svg("rect", {
          class: classes, "data-partition": t.partition === undefined ? "fetch" : t.partition, "data-kind": t.kind,
          x: x(t.sent_ms), y: y + 2 + lane * laneHeight, width: Math.max(2, x(stop) - x(t.sent_ms)),
          height: Math.max(2, laneHeight - 1), rx: 2
        }, svg("title", null, t.kind + " to " + t.leaf + ": sent at " + fmt(t.sent_ms, 3) + " ms, "
          + (t.answered_ms === undefined ? "no answer" : "answered at " + fmt(t.answered_ms, 3) + " ms (" + t.status + ")")
          + (t.used ? ", used" : ", not used") + (t.cancelled ? ", cancelled" : ""))));
      });
    });
    timeline.replaceChildren(...nodes);
  }

  /** The leaves as the replica choice saw them when the result was built: why copies went where they went. */
  function drawLeaves(leaves) {
    const header = el("tr", null, ...["leaf", "state", "outstanding", "rank", "response ms", "service ms", "queue"]
      .map(name => el("th", null, name)));
    const rows = leaves.map(leaf => el("tr", null,
      el("td", null, leaf.leaf),
      el("td", { title: leaf.reason || "" }, leaf.state + (leaf.reason ? " (" + leaf.reason + ")" : "")),
      el("td", null, fmt(leaf.outstanding, 0)),
      el("td", null, fmt(leaf.rank, 3)),
      el("td", null, fmt(leaf.response_ms, 3)),
      el("td", null, fmt(leaf.service_ms, 3)),
      el("td", null, fmt(leaf.queue, 2))));
    document.getElementById("trace-leaves").replaceChildren(el("thead", null, header), el("tbody", null, ...rows));
  }

  /** About {@code count} round tick values from 0 to max. */
  function ticks(max, count) {
    const raw = max / count;
    const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * magnitude).find(s => s >= raw);
    const values = [];
    for (let v = 0; v <= max + step / 1000; v += step) {
      values.push(v);
    }
    return values;
  }

  // ---------------------------------------------------------------- charts

  // Each point is the difference of two readings of /metrics/summary: running totals since the root
  // started, and latency bucket counts, whose difference gives the interval's percentiles.
  const points = [];
  let previous = null;

  async function pollSummary() {
    const { status, body } = await getJson("/metrics/summary");
    if (status !== 200) {
      return;
    }
    if (previous !== null && body.time_ms > previous.time_ms) {
      points.push(interval(previous, body));
      while (points.length > 0 && points[0].time < body.time_ms - WINDOW_MS) {
        points.shift();
      }
      drawCharts();
    }
    previous = body;
  }

  function interval(before, after) {
    const seconds = (after.time_ms - before.time_ms) / 1000;
    const count = s => s.complete + s.tainted + s.error + s.refused;
    const hedges = h => h.backup + h.fetch_backup + h.twin;
    const buckets = new Map(before.latency.buckets.map(b => [b.le, b.count]));
    const diff = after.latency.buckets.map(b => ({ le: b.le, count: b.count - (buckets.get(b.le) || 0) }))
      .filter(b => b.count > 0).sort((a, b) => a.le - b.le);
    const perSecond = total => (total(after) - total(before)) / seconds;
    return {
      time: after.time_ms,
      rate: perSecond(r => count(r.searches)),
      refused: perSecond(r => r.searches.refused),
      tainted: perSecond(r => r.searches.tainted),
      errors: perSecond(r => r.searches.error),
      hedges: perSecond(r => hedges(r.hedges)),
      p50: percentile(diff, 0.5), p99: percentile(diff, 0.99), p999: percentile(diff, 0.999)
    };
  }

  /** The upper bound (ms) of the bucket holding the q-th quantile; null without searches. */
  function percentile(buckets, q) {
    const total = buckets.reduce((sum, b) => sum + b.count, 0);
    if (total === 0) {
      return null;
    }
    const rank = Math.ceil(q * total);
    let seen = 0;
    for (const b of buckets) {
      seen += b.count;
      if (seen >= rank) {
        return b.le / 1000;
      }
    }
    return buckets[buckets.length - 1].le / 1000;
  }

  function drawCharts() {
    drawChart("chart-rate", ["rate"], "/s");
    drawChart("chart-latency", ["p50", "p99", "p999"], " ms");
    drawChart("chart-hedges", ["hedges"], "/s");
    drawChart("chart-trouble", ["refused", "tainted", "errors"], "/s");
    const last = points[points.length - 1];
    document.getElementById("charts-window").textContent = "last " + Math.round(WINDOW_MS / 60000) + " minutes, every "
      + POLL_MS / 1000 + " s; now " + fmt(last.rate, 1) + " searches/s, p99 " + fmt(last.p99, 2) + " ms";
  }

  function drawChart(id, series, unit) {
    const chart = document.getElementById(id);
    const width = 420, height = 150, left = 46, right = 8, top = 8, bottom = 18;
    const now = points[points.length - 1].time;
    const from = now - WINDOW_MS;
    // At least 1 (/s or ms) at the top, so an idle chart has a readable scale rather than 0 everywhere.
    const max = Math.max(1, ...points.flatMap(p => series.map(key => p[key] === null ? 0 : p[key])));
    const yMax = niceCeiling(max);
    const x = t => left + (width - left - right) * (t - from) / WINDOW_MS;
    const y = v => top + (height - top - bottom) * (1 - v / yMax);
    const nodes = [];
    for (let i = 0; i <= 4; i++) {
      const v = yMax * i / 4;
      nodes.push(svg("line", { class: "grid", x1: left, x2: width - right, y1: y(v), y2: y(v) }));
      nodes.push(svg("text", { x: left - 4, y: y(v) + 3, "text-anchor": "end" }, fmt(v, v < 10 ? 2 : 0) + unit));
    }
    for (let m = 0; m <= WINDOW_MS / 60000; m += 2) {
      nodes.push(svg("text", { x: x(now - m * 60000), y: height - 4, "text-anchor": "middle" }, m === 0 ? "now" : "-" + m + " min"));
    }
    for (const key of series) {
      // A gap where an interval had no searches to take a percentile of.
      let run = [];
      const runs = [run];
      for (const p of points) {
        if (p[key] === null) {
          run = [];
          runs.push(run);
        } else {
          run.push(x(p.time).toFixed(1) + "," + y(p[key]).toFixed(1));
        }
      }
      for (const r of runs.filter(r => r.length > 0)) {
        nodes.push(svg("polyline", { class: "series-" + key, "data-series": key, points: r.join(" ") }));
        if (r.length === 1) {
          const [px, py] = r[0].split(",");
          nodes.push(svg("circle", { class: "series-" + key, cx: px, cy: py, r: 1.5 }));
        }
      }
    }
    chart.replaceChildren(...nodes);
    chart.setAttribute("data-points", String(points.length));
  }

  function niceCeiling(value) {
    const magnitude = Math.pow(10, Math.floor(Math.log10(value)));
    return [1, 2, 2.5, 5, 10].map(m => m * magnitude).find(c => c >= value);
  }

  // ----------------------------------------------------------- cluster map

  async function pollCluster() {
    const { status, body } = await getJson("/cluster");
    if (status === 200) {
      drawCluster(body);
    }
  }

  const LEAF_STATES = { up: "ready", degraded: "degraded", down: "down", draining: "draining", probation: "probation" };

  function drawCluster(cluster) {
    const ready = document.getElementById("ready");
    ready.textContent = cluster.ready ? "ready" : (cluster.ready_status || "not ready");
    ready.className = "badge " + (cluster.ready ? "ok" : "warn");
    document.getElementById("index-name").textContent = "index " + cluster.index;
    const admission = cluster.admission;
    document.getElementById("cluster-summary").replaceChildren(...present(
      el("span", null, cluster.leaves.length + " leaves, " + cluster.partitions + " partitions × " + cluster.replicas
        + " replicas, " + fmt(cluster.docs, 0) + " documents"),
      admission ? el("span", { class: "muted" }, "admission " + admission.algorithm + ": " + admission.inflight
        + " in flight" + (admission.limit !== undefined ? " of " + admission.limit : "") + ", " + admission.queue.queued
        + " queued") : null));

    // A copy not yet serving every write: opening (placement) or out of sync (the write path).
    const catchingUp = new Set();
    for (const copy of (cluster.placement && cluster.placement.copies) || []) {
      if (copy.state === "opening") {
        catchingUp.add(copy.partition + "@" + copy.leaf);
      }
    }
    const leafByAddress = new Map(cluster.leaves.map(l => [l.address, l.leaf]));
    for (const p of (cluster.writes && cluster.writes.partitions) || []) {
      for (const replica of p.out_of_sync || []) {
        catchingUp.add(p.partition + "@" + leafByAddress.get(replica.leaf));
      }
    }

    const table = document.getElementById("cluster-map");
    const header = el("tr", null, el("th", null, "leaf"), el("th", null, "state"));
    for (let p = 0; p < cluster.partitions; p++) {
      header.append(el("th", { title: "partition " + p }, "p" + p));
    }
    const rows = cluster.leaves.map(leaf => {
      const state = LEAF_STATES[leaf.state] || leaf.state;
      const held = new Set(leaf.partitions);
      const row = el("tr", { class: "leaf-row", "data-leaf": leaf.leaf, "data-state": state },
        el("th", { class: "leaf", title: leaf.last_error || leaf.refused || "" },
          "#" + leaf.leaf + " " + leaf.address + (leaf.http ? " (http " + leaf.http + ")" : "")),
        el("td", null, el("span", { class: "cell state-" + state, title: leaf.probation ? leaf.probation.reason : "" }, state)));
      for (let p = 0; p < cluster.partitions; p++) {
        const copyState = catchingUp.has(p + "@" + leaf.leaf) ? "catching-up" : held.has(p) ? state : null;
        row.append(copyState === null ? el("td", { class: "empty" })
          : el("td", { class: "state-" + copyState, "data-partition": p, title: "partition " + p + ": " + copyState },
            copyState === "ready" ? "●" : copyState));
      }
      return row;
    });
    table.replaceChildren(el("thead", null, header), el("tbody", null, ...rows));
  }

  // ------------------------------------------------------------------ start

  function every(ms, task) {
    const run = () => task().catch(() => { /* the next poll tries again */ }).finally(() => setTimeout(run, ms));
    run();
  }

  every(POLL_MS, pollSummary);
  every(CLUSTER_POLL_MS, pollCluster);
  if (params.get("q")) {
    document.getElementById("q").value = params.get("q");
    search().catch(e => showFailure("the search could not be sent: " + e));
  }
})();
