"""fake_results.py DIR: the runner's device.tsv and results.tsv for the bundle DIR, written
by hand as an H200 would have (every variant verified, v1 the faster final candidate), so
that tests can import a baseline into the records without a GPU.

FAKE_FAST=PREFIX: the variant whose recipe starts with PREFIX is the fast one instead of v1.
FAKE_FAIL=PREFIX: variants whose recipe starts with PREFIX fail verification.
FAKE_PRUNE=SUBSTR: variants whose recipe contains SUBSTR are pruned before measuring (they
spill), as the runner records them.
FAKE_RANKED=1: every variant is faster, v1 most (2x), each next one a little less.
FAKE_VERIFIER=N: device.tsv names verifier version N (a runner since session 18)."""
import os
import sys

d = sys.argv[1]
variants, entries, bindings, recipe = [], [], {}, {}
for line in open(d + "/manifest.txt"):
    w = line.split()
    if w and w[0] == "variant":
        variants.append(w[1])
        recipe[w[1]] = w[3] if len(w) > 3 else ""
    elif w and w[0] == "entry":
        entries.append(w[1])
        bindings[w[1]] = []
    elif w and w[0] in ("tune", "check"):
        bindings[entries[-1]].append((w[0], " ".join(w[1:])))
with open(d + "/device.tsv", "w") as f:
    verifier = os.environ.get("FAKE_VERIFIER")
    f.write("gpu\tsm_count\tcompute_capability\tdriver_version\tcuda_driver_version\truntime_version"
            "\tnvcc_version\tnvcc_flags\tl2_bytes\tmemory_bytes\tmeasured_at" + ("\tverifier_version" if verifier else "") + "\n")
    f.write("NVIDIA H200\t132\t9.0\t580.159.04\t13.0\t13.0\tCuda compilation tools, release 13.0, V13.0.88"
            "\t-O3 -arch=sm_90\t62914560\t150109880320\t2026-12-04T12:00:00Z" + ("\t" + verifier if verifier else "") + "\n")
fast = "v1"
if os.environ.get("FAKE_FAST"):
    fast = next((v for v in variants if recipe[v].startswith(os.environ["FAKE_FAST"])), None)
fail = os.environ.get("FAKE_FAIL")
prune = os.environ.get("FAKE_PRUNE")
with open(d + "/results.tsv", "w") as f:
    f.write("variant\tentry\tbinding\tstatus\treason\tmedian_ms\tp10_ms\tp90_ms\treps\tspeedup\tci_lo\tci_hi\tmad_ms\tkind\n")
    for v in variants:
        for e in entries:
            for kind, b in bindings[e]:
                if prune and v != "ref" and prune in recipe[v]:
                    f.write(f"{v}\t{e}\t{b}\tfailed\tpruned: spills 16 bytes (stores 8, loads 8) in _Z1kPf, 32 registers; "
                            f"v1 of the same passes does not spill\t\t\t\t\t\t\t\t\t{kind}\n")
                elif fail and v != "ref" and recipe[v].startswith(fail):
                    f.write(f"{v}\t{e}\t{b}\tfailed\tmismatch: 'y' element 3 is 0.5, reference 0.25\t\t\t\t\t\t\t\t\t{kind}\n")
                elif kind == "check":
                    f.write(f"{v}\t{e}\t{b}\tok\tverified\t\t\t\t\t\t\t\t\tcheck\n")
                elif v == "ref":
                    f.write(f"ref\t{e}\t{b}\tok\tverified\t1\t0.99\t1.01\t50\t\t\t\t0.01\ttune\n")
                elif os.environ.get("FAKE_RANKED"):
                    k = int(v[1:])
                    t = 0.5 + 0.01 * k
                    f.write(f"{v}\t{e}\t{b}\tfaster\tverified\t{t:.2f}\t{t - 0.01:.2f}\t{t + 0.01:.2f}\t50\t{1 / t:.4f}\t{1 / t - 0.1:.4f}\t{1 / t + 0.1:.4f}\t0.001\ttune\n")
                elif v == fast:
                    f.write(f"{v}\t{e}\t{b}\tfaster\tverified\t0.5\t0.49\t0.51\t50\t2\t1.9\t2.1\t0.001\ttune\n")
                else:
                    f.write(f"{v}\t{e}\t{b}\tok\tverified\t0.8\t0.79\t0.81\t50\t1.25\t\t\t0.001\ttune\n")
