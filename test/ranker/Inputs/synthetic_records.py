"""Writes exported kfuse records (JSON lines, docs/records.md) of a made-up GPU on which
every variant with cuda-graph is twice as fast and every variant with ilp=2 a fifth slower:
eight sources, each with every combination of fuse-pointwise's parameters, with and without
the graph. The ranker should learn to put the graph first and ilp=2 last. With --levels, the
sources are named as corpus programs of three levels (three, three and two sources), for
kfuse learn --evaluate. With --retimed, each source's first variant is recorded as the
runner records a re-timed one: status faster, its speedup the pairs' (1.5x, below its
first round's ratio, as a few-microsecond entry's re-timing came out on the H200) and its
median the first round's. With --no-512, block=512 is never measured and block=256 is a fifth
slower than 128 (the ranker's exploration of a parameter value its records never measured)."""
import json
import sys

out = open(sys.argv[1], "w")
levels = "--levels" in sys.argv[2:]
retimed = "--retimed" in sys.argv[2:]
no512 = "--no-512" in sys.argv[2:]
out.write(json.dumps({"kfuse_records": 1, "schema": 1}, separators=(",", ":")) + "\n")
for s in range(8):
    source = "%064x" % (s + 1)
    binding = "n=%d" % (1 << (12 + s))
    rows = []
    for block in (256, 128) if no512 else (256, 128, 512):
        for vec in (4, 1):
            for ilp in (1, 2):
                for graph in (1, 0):
                    params = "block=%d,vec=%d" % (block, vec) + (",ilp=2" if ilp == 2 else "")
                    recipe = "fuse-pointwise(%s)@e#2-#4" % params + ("+cuda-graph@e" if graph else "")
                    size = (0.8 if block == 256 else 1.0) if no512 else (1 + 0.01 * (block // 128))
                    speedup = (2.0 if graph else 1.0) * (0.8 if ilp == 2 else 1.0) * size
                    rows.append({"source_hash": source, "entry": "e", "recipe": recipe, "binding": binding,
                                 "gpu": "Made-up GPU", "sm_count": 100, "driver_version": "1",
                                 "nvcc_version": "1", "nvcc_flags": "", "variant": "v%d" % (len(rows) + 1),
                                 "variant_file": "v.cu", "kind": "tune", "status": "ok", "reason": "verified",
                                 "median_ms": 1.0 / speedup, "p10_ms": None, "p90_ms": None, "mad_ms": None,
                                 "reps": 50, "speedup": speedup, "ci_lo": None, "ci_hi": None})
    run = {"digest": "%064x" % (100 + s), "measured_at": "2026-12-04T00:00:%02dZ" % s,
           "imported_at": "2026-12-04T00:00:00Z", "bundle": "/nowhere", "source_name": ("benchmarks/corpus/level%d/s%d.cu" % (1 + s // 3, s) if levels else "s%d.cu" % s),
           "source_hash": source, "libs": "", "gpu": "Made-up GPU", "sm_count": 100,
           "compute_capability": "9.0", "driver_version": "1", "cuda_driver_version": "1",
           "runtime_version": "1", "nvcc_version": "1", "nvcc_flags": "", "l2_bytes": None,
           "memory_bytes": None}
    if retimed:
        rows[0].update(status="faster", speedup=1.5, ci_lo=1.45, ci_hi=1.55)
    out.write(json.dumps({"run": run, "variants": [], "measurements": rows}, separators=(",", ":")) + "\n")
