"""The benchmark's figures, computed from result records alone (stdlib only).

A record is one JSON line of `benchmarks/run` (type "problem"). The figures, for a
*subject* (the kfuse output, "kfuse", or the reference CUDA, "ref") against a *baseline*
("ref", "eager", "compile", "max-autotune"):

- speedup = baseline ms / subject ms, per problem (medians; geometric mean over the tune
  bindings when an entry has several);
- geomean speedup: over the problems where the subject passed verification and both
  times exist;
- fast_p (KernelBench's): the share of problems whose subject is correct AND more than p
  times faster than the baseline; the denominator is every problem with a baseline time,
  so a subject that is missing, crashed or failed verification counts as not fast;
- median fraction of the floor: floor ms / subject ms over the problems where the
  subject passed (1.0 would be at the floor).
"""

import math

SUBJECTS = ("kfuse", "ref")
BASELINES = ("ref", "eager", "compile", "max-autotune")
FAST_P = (1.0, 1.5, 2.0)


def problems(records):
    """The latest record of each problem (later lines win), sorted by problem id."""
    latest = {}
    for r in records:
        if r.get("type", "problem") == "problem" and "problem" in r:
            latest[r["problem"]] = r
    return [latest[k] for k in sorted(latest)]


def ms(rec, variant):
    """The variant's time in ms (median; geomean over tune bindings), or None."""
    t = (rec.get("timing") or {}).get(variant) or {}
    v = t.get("ms")
    return v if isinstance(v, (int, float)) and v > 0 else None


def correct(rec, variant):
    """Whether the variant passed verification. The eager twin is the reference itself."""
    if variant == "eager":
        return ms(rec, "eager") is not None
    v = (rec.get("verify") or {}).get(variant) or {}
    return v.get("pass") is True


def speedup(rec, subject, baseline):
    a, b = ms(rec, subject), ms(rec, baseline)
    return b / a if (a and b) else None


def attempted(rec, variant):
    return variant in (rec.get("variants") or [])


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def fraction_of_floor(rec, variant):
    f = (rec.get("fraction_of_floor") or {}).get(variant)
    return f if isinstance(f, (int, float)) else None


def summarize(records):
    """Figures over the latest record of each problem. Returns a dict:
    {"problems": n, "subjects": {subject: {"attempted": n, "correct": n,
     "median_fraction_of_floor": x, "vs": {baseline: {"n_baseline": n, "n_pairs": n,
     "geomean": x, "fast": {p: share}}}}}}; a subject no problem attempted is left out."""
    recs = problems(records)
    out = {"problems": len(recs), "subjects": {}}
    for subject in SUBJECTS:
        tried = [r for r in recs if attempted(r, subject)]
        if not tried:
            continue
        good = [r for r in tried if correct(r, subject)]
        s = {"attempted": len(tried), "correct": len(good),
             "median_fraction_of_floor": median([fraction_of_floor(r, subject) for r in good]),
             "vs": {}}
        for base in BASELINES:
            if base == subject:
                continue
            with_base = [r for r in recs if ms(r, base) is not None]
            if not with_base:
                continue
            pairs = [speedup(r, subject, base) for r in with_base if correct(r, subject)]
            pairs = [p for p in pairs if p is not None]
            s["vs"][base] = {
                "n_baseline": len(with_base),
                "n_pairs": len(pairs),
                "geomean": geomean(pairs),
                "fast": {p: sum(1 for x in pairs if x > p) / len(with_base) for p in FAST_P},
            }
        out["subjects"][subject] = s
    return out


def level(rec):
    """The corpus level of a record: the part of its problem id before the slash (level1,
    launch)."""
    return rec["problem"].split("/", 1)[0]


def by_level(records):
    """summarize() over each level's problems alone: {level: summary}, levels sorted."""
    recs = problems(records)
    return {lv: summarize([r for r in recs if level(r) == lv]) for lv in sorted({level(r) for r in recs})}


REPEAT_VARIANTS = ("ref", "kfuse", "eager", "compile", "max-autotune")
REPEAT_BANDS = (0.02, 0.05, 0.10)


def repeat(records, again):
    """How far a repeated run's times are from the first run's, problem by problem: for each
    variant timed in both, {"n": problems, "median": median of again/first, "min", "max"
    (ratio, problem), "within": {band: share with |ratio - 1| <= band}, "outside":
    [(problem, ratio)] beyond the widest band's half (5%)}. Only problems in both count."""
    first = {r["problem"]: r for r in problems(records)}
    out = {}
    for variant in REPEAT_VARIANTS:
        ratios = []
        for r in problems(again):
            a, b = ms(first.get(r["problem"], {}), variant), ms(r, variant)
            if a and b:
                ratios.append((b / a, r["problem"]))
        if not ratios:
            continue
        ratios.sort()
        qs = [q for q, _ in ratios]
        out[variant] = {"n": len(ratios), "median": median(qs),
                        "min": ratios[0], "max": ratios[-1],
                        "within": {band: sum(1 for q in qs if abs(q - 1) <= band) / len(qs)
                                   for band in REPEAT_BANDS},
                        "outside": [(p, q) for q, p in ratios if abs(q - 1) > 0.05]}
    return out


def speedups(rec):
    """Per-problem speedups, stored in each record for convenience."""
    out = {}
    for subject in SUBJECTS:
        for base in BASELINES:
            if base != subject:
                x = speedup(rec, subject, base)
                if x is not None:
                    out["%s_vs_%s" % (subject, base)] = x
    return out


def fmt_ms(x):
    if x is None:
        return "-"
    return "%.3g" % x if x < 100 else "%.0f" % x


def fmt_x(x):
    return "-" if x is None else "%.2fx" % x


def fmt_pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def verify_label(rec, variant):
    """'pass', 'FAIL', 'error' or '-' (not attempted) for a table cell."""
    v = (rec.get("verify") or {}).get(variant)
    if v is None:
        return "-"
    if v.get("pass") is True:
        return "pass"
    if v.get("error") or any(run.get("error") for run in v.get("runs", [])):
        return "error"
    return "FAIL"


def summary_lines(summary):
    """The figures as plain text lines (for the run's end and the report)."""
    lines = ["problems: %d" % summary["problems"]]
    for subject, s in summary["subjects"].items():
        lines.append("%s: %d attempted, %d verified correct, median fraction of floor %s"
                     % (subject, s["attempted"], s["correct"],
                        "-" if s["median_fraction_of_floor"] is None
                        else "%.3f" % s["median_fraction_of_floor"]))
        for base, b in s["vs"].items():
            lines.append("  vs %-12s geomean %-7s fast_1 %-5s fast_1.5 %-5s fast_2 %-5s "
                         "(%d with both times, %d with a baseline time)"
                         % (base, fmt_x(b["geomean"]), fmt_pct(b["fast"][1.0]),
                            fmt_pct(b["fast"][1.5]), fmt_pct(b["fast"][2.0]),
                            b["n_pairs"], b["n_baseline"]))
    return lines
