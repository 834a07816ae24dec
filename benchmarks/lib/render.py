"""Tables and plots of benchmark records (stdlib; matplotlib used when importable).

- text_table(records): the plain table `benchmarks/run` prints at its end;
- markdown(records, ...): the report of `benchmarks/report` (figures, then one row a
  problem);
- plot(records, path): speedup per problem against eager and against torch.compile, log
  scale, through matplotlib when it is importable, else an SVG written by hand.
"""

import html
import math

import figures as F


def _subject(recs):
    """The subject of tables and plots: the kfuse output when any problem has one, else
    the reference CUDA (so a run without kfuse outputs still shows the reference)."""
    return "kfuse" if any(F.attempted(r, "kfuse") for r in recs) else "ref"


def _has(recs, variant):
    return any(F.ms(r, variant) is not None or F.attempted(r, variant) for r in recs)


def _status(rec):
    s = rec.get("status", "?")
    return s if s != "ok" else ""


def rows(records):
    """(header, rows) of the per-problem table, as strings."""
    recs = F.problems(records)
    mat = _has(recs, "max-autotune")
    header = ["problem", "ref", "kfuse", "ref ms", "kfuse ms", "eager ms", "compile ms"]
    # verification: pass / FAIL / error / - ; times: medians in ms; x/y: y ms over x ms
    if mat:
        header.append("max-at ms")
    header += ["kfuse/ref", "kfuse/eager", "kfuse/compile", "ref/eager", "ref/compile",
               "floor ms", "floor frac kfuse", "floor frac ref", "status", "applied"]
    out = []
    for r in recs:
        row = [r["problem"], F.verify_label(r, "ref"), F.verify_label(r, "kfuse"),
               F.fmt_ms(F.ms(r, "ref")), F.fmt_ms(F.ms(r, "kfuse")),
               F.fmt_ms(F.ms(r, "eager")), F.fmt_ms(F.ms(r, "compile"))]
        if mat:
            row.append(F.fmt_ms(F.ms(r, "max-autotune")))
        floor = (r.get("floor") or {}).get("floor_ms")
        fk, fr = F.fraction_of_floor(r, "kfuse"), F.fraction_of_floor(r, "ref")
        row += [F.fmt_x(F.speedup(r, "kfuse", "ref")), F.fmt_x(F.speedup(r, "kfuse", "eager")),
                F.fmt_x(F.speedup(r, "kfuse", "compile")), F.fmt_x(F.speedup(r, "ref", "eager")),
                F.fmt_x(F.speedup(r, "ref", "compile")), F.fmt_ms(floor),
                "-" if fk is None else "%.2f" % fk, "-" if fr is None else "%.2f" % fr,
                _status(r), "; ".join(applied(r)) or "-"]
        out.append(row)
    return header, out


def applied(rec):
    """The transformations kfuse kept, from the output's `// kfuse-applied:` lines."""
    k = rec.get("kfuse") or {}
    return [ln[len("// kfuse-applied:"):].strip() or ln for ln in k.get("applied", [])]


# Columns of the compact table that `benchmarks/run` prints (the device's reply keeps
# only the end of the output, so the printed table stays narrow; the report has them all).
COMPACT = ("problem", "ref", "kfuse", "ref ms", "kfuse ms", "eager ms", "compile ms",
           "max-at ms", "kfuse/ref", "kfuse/eager", "kfuse/compile", "ref/eager",
           "floor frac kfuse", "floor frac ref", "status", "applied")


def text_table(records, compact=True, max_applied=30, max_problem=44):
    """The per-problem table as aligned plain text."""
    header, body = rows(records)
    keep = [i for i, h in enumerate(header) if not compact or h in COMPACT]
    header = [header[i] for i in keep]
    body = [[row[i] for i in keep] for row in body]
    for row in body:
        row[0] = row[0] if len(row[0]) <= max_problem else row[0][:max_problem - 3] + "..."
        row[-1] = row[-1][:max_applied]
    widths = [max(len(str(c)) for c in col) for col in zip(header, *body)] if body else [len(h) for h in header]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    lines = [fmt % tuple(header), fmt % tuple("-" * w for w in widths)]
    lines += [fmt % tuple(row) for row in body]
    return "\n".join(line.rstrip() for line in lines)


def _md_escape(text):
    if text is None:
        return "-"
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(records, source="", plot_path=None, repeat=None):
    """The Markdown report: the runs' facts, the figures, then one row a problem."""
    recs = F.problems(records)
    runs = [r for r in records if r.get("type") == "run"]
    summary = F.summarize(records)
    out = ["# kfuse GPU benchmark report", ""]
    if source:
        out.append("From `%s`: %d problems (latest record of each)." % (source, len(recs)))
        out.append("")
    if recs:
        # The runs that measured the problems shown: their `run` lines, else the copy of
        # the run's facts that every problem record carries.
        wanted = [r.get("run_id") for r in recs]
        by_id = {m.get("run_id"): m for m in runs}
        for r in recs:
            by_id.setdefault(r.get("run_id"), r.get("meta") or {})
        out += ["## Runs", "", "| run | date | GPU | SMs | driver | torch | nvcc | commit | copy GB/s | fp32 TFLOP/s | bf16 TFLOP/s | problems |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for rid in sorted(set(wanted), key=lambda x: str(x)):
            m = by_id.get(rid) or {}
            out.append("| %s |" % " | ".join(_md_escape(x) for x in (
                rid, m.get("date"), m.get("gpu"), m.get("sm_count"), m.get("driver"),
                m.get("torch"), m.get("nvcc"), (m.get("commit") or "-")[:12],
                _num(m.get("copy_GBps")), _num(m.get("fp32_tflops")),
                _num(m.get("bf16_tflops")), wanted.count(rid))))
        out.append("")
    out += ["## Figures", ""]
    if not summary["subjects"]:
        out += ["No problem has a measured subject yet.", ""]
    for subject, s in summary["subjects"].items():
        label = "kfuse output" if subject == "kfuse" else "reference CUDA"
        out += ["### %s" % label, "",
                "%d problems attempted, %d verified correct; median fraction of the floor: %s."
                % (s["attempted"], s["correct"], "-" if s["median_fraction_of_floor"] is None
                   else "%.3f" % s["median_fraction_of_floor"]), "",
                "| against | geomean speedup | fast_1 | fast_1.5 | fast_2 | problems with both times | problems with a baseline time |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        for base, b in s["vs"].items():
            out.append("| %s | %s | %s | %s | %s | %d | %d |" % (
                base, F.fmt_x(b["geomean"]), F.fmt_pct(b["fast"][1.0]),
                F.fmt_pct(b["fast"][1.5]), F.fmt_pct(b["fast"][2.0]), b["n_pairs"], b["n_baseline"]))
        out.append("")
    levels = F.by_level(records)
    if len(levels) > 1 and "kfuse" in summary["subjects"]:
        out += ["### kfuse output by level", "",
                "| level | against | geomean speedup | fast_1 | fast_1.5 | fast_2 | problems with both times | problems with a baseline time |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for lv, ls in levels.items():
            for base, b in ((ls["subjects"].get("kfuse") or {}).get("vs") or {}).items():
                out.append("| %s | %s | %s | %s | %s | %s | %d | %d |" % (
                    lv, base, F.fmt_x(b["geomean"]), F.fmt_pct(b["fast"][1.0]),
                    F.fmt_pct(b["fast"][1.5]), F.fmt_pct(b["fast"][2.0]), b["n_pairs"], b["n_baseline"]))
        out.append("")
    if plot_path:
        out += ["![speedup per problem](%s)" % plot_path, ""]
    header, body = rows(records)
    out += ["## Problems", "", "| %s |" % " | ".join(header),
            "| %s |" % " | ".join("---" for _ in header)]
    out += ["| %s |" % " | ".join(_md_escape(c) for c in row) for row in body]
    out.append("")
    results = [(r["problem"], (r.get("kfuse") or {}).get("result_lines") or []) for r in recs]
    results = [(p, ls) for p, ls in results if ls]
    if results:
        out += ["## kfuse's own records", "", "The `// kfuse-result:` lines of each output, as written.", ""]
        for p, ls in results:
            out.append("- `%s`" % p)
            out += ["  - `%s`" % ln.replace("`", "'") for ln in ls]
        out.append("")
    failures = [r for r in recs if r.get("status") not in ("ok", None) or r.get("error")]
    if failures:
        out += ["## Problems that did not run through", ""]
        for r in failures:
            out.append("- `%s`: %s: %s" % (r["problem"], r.get("status"),
                                           _md_escape((r.get("error") or "")[:300])))
        out.append("")
    if repeat:
        out += repeat_markdown(*repeat)
    out += ["Timing: CUDA events around one call, L2 flushed before each, median of 30 to 100 "
            "calls (5 or more above 100 ms). Speedup = baseline ms / subject ms. fast_p: share "
            "of problems with a baseline time whose subject is correct and more than p times "
            "faster. Floor = max(bytes / copy bandwidth, FLOPs / matrix rate); FLOPs count "
            "matrix products and convolutions only. See docs/benchmark.md.", ""]
    return "\n".join(out)


def repeat_markdown(rep, first, again):
    """The repeatability table of figures.repeat()."""
    out = ["## Repeatability", "",
           "The same problems timed again (`%s`) against the first run (`%s`): the ratio of "
           "the two medians, again / first." % (again, first), "",
           "| variant | problems | median ratio | within 2% | within 5% | within 10% | lowest | highest | beyond 5% |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for variant, r in rep.items():
        out.append("| %s |" % " | ".join(_md_escape(c) for c in (
            variant, r["n"], "%.3f" % r["median"],
            *(F.fmt_pct(r["within"][b]) for b in F.REPEAT_BANDS),
            "%.3f (%s)" % r["min"], "%.3f (%s)" % r["max"],
            ", ".join("%s %.3f" % (p, q) for p, q in r["outside"]) or "-")))
    if not rep:
        out.append("| - | 0 | - | - | - | - | - | - | no problem timed in both |")
    out.append("")
    return out


def _num(x):
    return "-" if not isinstance(x, (int, float)) else "%.4g" % x


# ---------------------------------------------------------------------------------------
# Plot


def plot_series(records):
    """(labels, {series name: [speedup or None per problem]}) for the plot."""
    recs = F.problems(records)
    subject = _subject(recs)
    labels = [r["problem"] for r in recs]
    series = {}
    for base in ("eager", "compile"):
        name = "%s vs %s" % (subject, "torch.compile" if base == "compile" else base)
        series[name] = [F.speedup(r, subject, base) if F.correct(r, subject) else None for r in recs]
    return labels, series


def plot(records, path):
    """Writes the speedup plot to `path` (SVG, or any format matplotlib knows by the
    extension). Returns "matplotlib" or "svg" (which writer was used)."""
    labels, series = plot_series(records)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:                   # noqa: BLE001 - fall back to the hand-written SVG
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg(labels, series))
        return "svg"
    fig, ax = plt.subplots(figsize=(max(6.0, 0.18 * len(labels) + 2), 4.5))
    markers = ["o", "s", "^", "D"]
    for i, (name, ys) in enumerate(series.items()):
        xs = [j for j, y in enumerate(ys) if y]
        ax.scatter(xs, [ys[j] for j in xs], label=name, marker=markers[i % 4], s=18)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup (baseline ms / subject ms)")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=90, fontsize=6)
    ax.legend(fontsize=8)
    ax.set_title("Speedup per problem (log scale)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return "matplotlib"


def svg(labels, series, width_per=14, plot_h=210):
    """A log-scale scatter of the series as a standalone SVG document (no dependency)."""
    values = [y for ys in series.values() for y in ys if y]
    lo = min(values + [1.0]) / 1.25
    hi = max(values + [1.0]) * 1.25
    lo = 10 ** math.floor(math.log10(lo)) if lo > 0 else 0.1
    hi = 10 ** math.ceil(math.log10(hi))
    # the problem names stand rotated under the axis: leave room for the longest
    left, right, top = 60, 20, 30
    bottom = 16 + int(5.2 * max([len(x) for x in labels] + [10]))
    n = max(1, len(labels))
    width = left + right + max(560, n * width_per)
    height = top + plot_h + bottom
    plot_w = width - left - right

    def y_of(v):
        return top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    def x_of(i):
        return left + plot_w * (i + 0.5) / n

    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="10">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="16" font-size="13">Speedup per problem (log scale)</text>' % left]
    dec = int(round(math.log10(lo)))
    while 10 ** dec <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** dec
            if lo <= v <= hi:
                y = y_of(v)
                parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>'
                             % (left, left + plot_w, y, y, "#999" if v == 1 else "#eee"))
                parts.append('<text x="%d" y="%.1f" text-anchor="end">%gx</text>' % (left - 4, y + 3, v))
        dec += 1
    parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
                 % (left, top, plot_w, plot_h))
    for i, label in enumerate(labels):
        x = x_of(i)
        parts.append('<text transform="translate(%.1f,%d) rotate(-90)" text-anchor="end" '
                     'font-size="8">%s</text>' % (x + 3, top + plot_h + 4, html.escape(label)))
    for k, (name, ys) in enumerate(series.items()):
        c = colors[k % len(colors)]
        for i, y in enumerate(ys):
            if y:
                parts.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: %.3gx'
                             '</title></circle>' % (x_of(i), y_of(y), c, html.escape(labels[i]),
                                                    html.escape(name), y))
        lx = left + 240 + 150 * k       # legend along the top, after the title
        parts.append('<circle cx="%d" cy="12" r="4" fill="%s"/><text x="%d" y="16">%s</text>'
                     % (lx, c, lx + 8, html.escape(name)))
    parts.append('<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">'
                 'baseline ms / subject ms</text>' % (top + plot_h // 2))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def read_curves(path):
    """The search curves `kfuse learn --evaluate --curves` wrote: a list of
    {"measurements": int, "rule": float, "random": float, "ranker": float or None}."""
    import csv
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.append({"measurements": int(r["measurements"]), "rule": float(r["rule"]),
                         "random": float(r["random"]),
                         "ranker": float(r["ranker"]) if r.get("ranker") else None})
    if not rows:
        raise ValueError("%s: no curve rows" % path)
    return rows


def curves_markdown(rows, source, svg_path=None):
    """A section with the mean search curves: the fraction of the best found after m
    measurements, per order."""
    out = ["## Search curves", "",
           "From `%s` (`kfuse learn --evaluate --curves`): the mean fraction of each group's "
           "best speedup found after m measurements, in the rule order, random order "
           "(expected) and the held-out ranker's order." % source, ""]
    if svg_path:
        out += ["![search curves](%s)" % svg_path, ""]
    out += ["| measurements | rule | random | ranker |", "| --- | --- | --- | --- |"]
    for r in rows:
        out.append("| %d | %.3f | %.3f | %s |" % (r["measurements"], r["rule"], r["random"],
                                                  "%.3f" % r["ranker"] if r["ranker"] is not None else "-"))
    return "\n".join(out) + "\n"


def curves_svg(rows, plot_w=480, plot_h=240):
    """The search curves as a standalone SVG line chart (no dependency)."""
    left, right, top, bottom = 60, 130, 30, 40
    width, height = left + plot_w + right, top + plot_h + bottom
    n = max(r["measurements"] for r in rows)
    lo = min(min(r["rule"], r["random"], r["ranker"] if r["ranker"] is not None else 1) for r in rows)
    lo = math.floor(lo * 10) / 10 if lo < 1 else 0.9

    def x_of(m):
        return left + plot_w * ((m - 1) / (n - 1) if n > 1 else 0.5)

    def y_of(v):
        return top + plot_h * (1 - (v - lo) / (1 - lo))

    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="10">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="16" font-size="13">Fraction of the best found, against measurements</text>'
             % left]
    steps = int(round((1 - lo) / 0.1))
    for i in range(steps + 1):
        v = lo + i * 0.1
        y = y_of(v)
        parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>'
                     % (left, left + plot_w, y, y, "#999" if abs(v - 0.95) < 1e-9 else "#eee"))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 4, y + 3, v))
    y95 = y_of(0.95)
    parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 3"/>'
                 % (left, left + plot_w, y95, y95))
    parts.append('<text x="%d" y="%.1f" fill="#666">95%%</text>' % (left + plot_w + 4, y95 + 3))
    for m in sorted({1, n} | set(range(5, n + 1, 5))):
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x_of(m), top + plot_h + 14, m))
    parts.append('<text x="%d" y="%d" text-anchor="middle">measurements</text>'
                 % (left + plot_w // 2, top + plot_h + 32))
    parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
                 % (left, top, plot_w, plot_h))
    colors = {"rule": "#1f77b4", "random": "#7f7f7f", "ranker": "#d62728"}
    for k, name in enumerate(("rule", "random", "ranker")):
        pts = [(x_of(r["measurements"]), y_of(r[name])) for r in rows if r[name] is not None]
        if not pts:
            continue
        parts.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>'
                     % (colors[name], " ".join("%.1f,%.1f" % p for p in pts), name))
        ly = top + 14 + 16 * k
        parts.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                     '<text x="%d" y="%d">%s</text>' % (left + plot_w + 30, left + plot_w + 50, ly, ly,
                                                          colors[name], left + plot_w + 55, ly + 3, name))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
