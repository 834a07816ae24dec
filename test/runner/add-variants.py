#!/usr/bin/env python3
"""add-variants.py BUNDLE NAME=FILE...: put each FILE into the hand-made bundle BUNDLE (a copy
of one in planted/Inputs) as variant NAME: NAME.cu, its shim NAME.shim.cu (the reference's,
calling NAME.cu), a line in manifest.txt, and an entry in bundle.c's variant table after the
ones there. For tests that need several variants in one bundle (batch.test)."""
import os
import re
import shutil
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: add-variants.py BUNDLE NAME=FILE...")
    bundle = sys.argv[1]
    shim = open(os.path.join(bundle, "ref.shim.cu")).read()
    path = os.path.join(bundle, "bundle.c")
    text = open(path).read()
    table = re.search(r"static const kb_variant variants\[\] = \{\n(.*?)\n\};", text, re.S)
    count = re.search(r"entries, (\d+), variants\}", text)
    if not table or not count:
        sys.exit("add-variants.py: %s has no variant table" % path)
    rows = table.group(1)
    n = int(count.group(1))
    with open(os.path.join(bundle, "manifest.txt"), "a") as manifest:
        for arg in sys.argv[2:]:
            name, _, source = arg.partition("=")
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or not source:
                sys.exit("add-variants.py: expected NAME=FILE, not '%s'" % arg)
            shutil.copyfile(source, os.path.join(bundle, name + ".cu"))
            with open(os.path.join(bundle, name + ".shim.cu"), "w") as f:
                f.write(shim.replace('"ref.cu"', '"%s.cu"' % name))
            rows += '\n    {"%s", "%s.cu", "user:%s.cu"},' % (name, name, name)
            manifest.write("variant %-4s %s.cu   user:%s.cu\n" % (name, name, name))
            n += 1
    text = text[:table.start(1)] + rows + text[table.end(1):]
    text = re.sub(r"entries, \d+, variants\}", "entries, %d, variants}" % n, text)
    open(path, "w").write(text)


if __name__ == "__main__":
    main()
