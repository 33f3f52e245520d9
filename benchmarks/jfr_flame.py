#!/usr/bin/env python3
"""Folded stacks, top-frame tables and a flame graph (SVG) from JFR execution samples, offline.

Usage: jfr_flame.py SAMPLES.txt OUT_BASE [TITLE]

SAMPLES.txt is the text of `jfr print --events jdk.ExecutionSample --stack-depth 64 REC.jfr`.
Writes OUT_BASE.folded (one "thread;outermost;...;innermost count" line per distinct stack, the
format of Brendan Gregg's flamegraph.pl), OUT_BASE.top.md (the frames with the most samples on
top of the stack, and in it anywhere) and OUT_BASE.svg (a self-contained flame graph: hover a box
for its frame and share). benchmarks/serving-cost.sh --jfr runs it; nothing is downloaded.
"""
import collections
import html
import re
import sys
import zlib

FRAME_LINE = re.compile(r"^\s+(\S.*?)(?:\s+line:\s*\d+)?(?:\s+bci:\s*\d+)?\s*$")
THREAD_LINE = re.compile(r'^\s+sampledThread = "(.*)"')


def frame_name(text):
    """pkg.Class.method(args) line: N -> pkg.Class.method; a truncation mark stays as it is."""
    text = text.strip()
    paren = text.find("(")
    return text if paren < 0 else text[:paren]


def read_samples(path):
    """Yields (thread, [outermost frame ... innermost frame]) per sample."""
    thread, frames, in_stack = "?", [], False
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("jdk.ExecutionSample"):
                thread, frames, in_stack = "?", [], False
            elif (match := THREAD_LINE.match(line)) is not None:
                thread = match.group(1)
            elif line.strip() == "stackTrace = [":
                in_stack = True
            elif in_stack and line.strip() == "]":
                in_stack = False
                if frames:
                    yield thread, list(reversed(frames))  # jfr prints the innermost frame first
            elif in_stack and (match := FRAME_LINE.match(line)) is not None:
                frames.append(frame_name(match.group(1)))


def thread_group(name):
    """Threads of a pool under one name: leaf-worker-3 -> leaf-worker-N."""
    return re.sub(r"\d+", "N", name)


def fold(samples):
    folded = collections.Counter()
    for thread, frames in samples:
        folded[";".join([thread_group(thread)] + frames)] += 1
    return folded


def top_tables(folded, limit=25):
    total = sum(folded.values())
    self_counts, inclusive = collections.Counter(), collections.Counter()
    for stack, count in folded.items():
        frames = stack.split(";")[1:]
        self_counts[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    out = [f"Samples: {total}.", "", "Top frames by samples on top of the stack (self):", "",
           "| frame | samples | share |", "| --- | ---: | ---: |"]
    out += [f"| `{f}` | {c} | {100 * c / total:.1f}% |" for f, c in self_counts.most_common(limit)]
    out += ["", "Top frames by samples anywhere in the stack (inclusive):", "",
            "| frame | samples | share |", "| --- | ---: | ---: |"]
    out += [f"| `{f}` | {c} | {100 * c / total:.1f}% |" for f, c in inclusive.most_common(limit)]
    return "\n".join(out) + "\n"


def tree(folded):
    root = {"name": "all", "count": 0, "children": {}}
    for stack, count in folded.items():
        node = root
        root["count"] += count
        for frame in stack.split(";"):
            node = node["children"].setdefault(frame, {"name": frame, "count": 0, "children": {}})
            node["count"] += count
    return root


def colour(name):
    """Warm colours, stable per frame; Hedgerow's own frames greener, the JDK's bluer."""
    h = zlib.crc32(name.encode())
    if name.startswith("io.hedgerow"):
        return f"rgb({80 + h % 60},{170 + h % 60},{70 + h % 40})"
    if name.startswith(("java.", "jdk.", "sun.")):
        return f"rgb({90 + h % 50},{140 + h % 50},{200 + h % 50})"
    return f"rgb({205 + h % 50},{90 + h % 110},{40 + h % 50})"


def svg(root, title, width=1200, row=16):
    boxes = []
    depth_max = [0]

    def place(node, x, depth):
        depth_max[0] = max(depth_max[0], depth)
        boxes.append((node, x, depth))
        child_x = x
        for child in sorted(node["children"].values(), key=lambda c: c["name"]):
            place(child, child_x, depth + 1)
            child_x += child["count"]

    place(root, 0, 0)
    total = max(1, root["count"])
    scale = (width - 20) / total
    top = 40
    height = top + (depth_max[0] + 1) * row + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="monospace" font-size="11">',
             f'<rect width="100%" height="100%" fill="#fdfdf6"/>',
             f'<text x="10" y="20" font-size="14">{html.escape(title)}</text>',
             f'<text x="10" y="34" fill="#555">{total} samples; hover a box for its frame and share</text>']
    for node, x, depth in boxes:
        w = node["count"] * scale
        if w < 0.3:
            continue  # too thin to see; its parent's box still counts it
        px = 10 + x * scale
        py = height - 20 - (depth + 1) * row
        name = html.escape(node["name"])
        share = 100 * node["count"] / total
        parts.append(f'<g><title>{name} ({node["count"]} samples, {share:.2f}%)</title>'
                     f'<rect x="{px:.2f}" y="{py}" width="{w:.2f}" height="{row - 1}" fill="{colour(node["name"])}" rx="1"/>')
        chars = int(w / 7)
        if chars >= 4:
            label = node["name"] if len(node["name"]) <= chars else node["name"][:chars - 2] + ".."
            parts.append(f'<text x="{px + 2:.2f}" y="{py + row - 4}">{html.escape(label)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    samples_path, base = argv[1], argv[2]
    title = argv[3] if len(argv) > 3 else base
    folded = fold(read_samples(samples_path))
    if not folded:
        print(f"error: no execution samples in {samples_path} (expected the output of jfr print "
              f"--events jdk.ExecutionSample)", file=sys.stderr)
        return 1
    with open(base + ".folded", "w", encoding="utf-8") as out:
        for stack, count in sorted(folded.items()):
            out.write(f"{stack} {count}\n")
    with open(base + ".top.md", "w", encoding="utf-8") as out:
        out.write(f"# {title}\n\n" + top_tables(folded))
    with open(base + ".svg", "w", encoding="utf-8") as out:
        out.write(svg(tree(folded), title))
    print(f"{base}: {sum(folded.values())} samples, {len(folded)} distinct stacks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
