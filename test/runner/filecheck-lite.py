#!/usr/bin/env python3
"""A small FileCheck for run-gpu-tests.sh on GPU hosts that have no LLVM: CHECK, CHECK-NEXT,
CHECK-NOT, CHECK-DAG, CHECK-LABEL and CHECK-COUNT-n with {{regex}}, --check-prefix, and FileCheck's default
canonicalization of horizontal whitespace. Usage: filecheck-lite.py [--check-prefix=P] FILE
(the input on stdin). Exits 1 with a message on the first check that fails."""
import re
import sys


def pattern(text):
    out, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        out.append(re.escape(text[pos:m.start()]))
        out.append("(?:" + m.group(1) + ")")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    rx = "".join(out)
    rx = re.sub(r"(\\ )+", " ", rx)  # canonical whitespace in the literal parts
    return re.compile(rx)


def main(argv):
    prefix, path = "CHECK", None
    for a in argv[1:]:
        if a.startswith("--check-prefix="):
            prefix = a.split("=", 1)[1]
        elif a.startswith("-"):
            continue
        else:
            path = a
    checks = []
    kinds = r"(-NEXT|-NOT|-DAG|-LABEL|-COUNT-[1-9][0-9]*)?"
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        m = re.search(re.escape(prefix) + kinds + r":(.*)$", line)
        if m and re.match(r"(^|.*[^A-Za-z0-9_-])$", line[:m.start()]):
            checks.append((m.group(1) or "", m.group(2).strip(), n))
    if not checks:
        print(f"filecheck-lite: no {prefix}: lines in {path}", file=sys.stderr)
        return 2
    text = [re.sub(r"[ \t]+", " ", l.rstrip("\n")) for l in sys.stdin]

    def find(rx, start, stop):
        for i in range(start, min(stop, len(text))):
            if rx.search(text[i]):
                return i
        return None

    def fail(kind, pat, n, why):
        print(f"{path}:{n}: error: {prefix}{kind}: {why}: {pat}", file=sys.stderr)
        print("input was:\n" + "\n".join(text), file=sys.stderr)
        return 1

    cur, nots, i = 0, [], 0
    while i < len(checks):
        kind, pat, n = checks[i]
        if kind == "-NOT":
            nots.append((pattern(pat), pat, n))
            i += 1
            continue
        if kind == "-DAG":
            group = []
            while i < len(checks) and checks[i][0] == "-DAG":
                group.append(checks[i])
                i += 1
            used, end = set(), cur
            for _, p, m in group:
                rx = pattern(p)
                hit = next((k for k in range(cur, len(text)) if k not in used and rx.search(text[k])), None)
                if hit is None:
                    return fail("-DAG", p, m, "no match")
                used.add(hit)
                end = max(end, hit)
            first = min(used)
            for rx, p, m in nots:
                if find(rx, cur, first) is not None:
                    return fail("-NOT", p, m, "excluded string found")
            nots, cur = [], end + 1
            continue
        rx = pattern(pat)
        # CHECK-COUNT-n: n matches, each on a line after the one before
        times = int(kind[len("-COUNT-"):]) if kind.startswith("-COUNT-") else 1
        hit, start = None, cur
        for k in range(times):
            hit = find(rx, start, start + 1 if kind == "-NEXT" else len(text))
            if hit is None:
                return fail(kind, pat, n, "no match" if k == 0 else "%d matches of %d" % (k, times))
            start = hit + 1
        for nrx, p, m in nots:
            if find(nrx, cur, hit) is not None:
                return fail("-NOT", p, m, "excluded string found")
        nots, cur = [], hit + 1
        i += 1
    for rx, p, m in nots:
        if find(rx, cur, len(text)) is not None:
            return fail("-NOT", p, m, "excluded string found")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
