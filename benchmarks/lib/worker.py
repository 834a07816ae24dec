"""The benchmark's worker process: imports torch once, then serves jobs from the driver.

    python3 benchmarks/lib/worker.py --result-fd N [--device cuda]

Jobs arrive as JSON lines on stdin ({"op": "calibrate"} or {"op": "problem", ...}).
Messages go back as JSON lines on file descriptor N, apart from stdout and stderr, which
carry logs only (nvcc, torch and the programs themselves may print anything there):

    {"event": "ready"}                              once torch is imported
    {"event": "stage", "variant": V, "stage": S}    progress, so the driver knows what a
                                                    crash or a timeout interrupted
    {"event": "result", "record": {...}}            one per job

After a sticky CUDA error the worker sends its partial result with "poisoned": VARIANT and
exits with status 3; the driver starts a fresh worker. One problem can therefore never
take the run down with it.
"""

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus import jsonable  # noqa: E402

EXIT_POISONED = 3


def die_with_parent():
    """Asks Linux to kill this process when the driver dies (a killed driver must not
    leave a worker holding the GPU); a no-op elsewhere."""
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:           # the driver is already gone
            os._exit(1)
    except Exception:                   # noqa: BLE001 - best effort
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--result-fd", type=int, required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--flush-mib", type=int, default=256)
    args = ap.parse_args()
    die_with_parent()
    out = os.fdopen(args.result_fd, "w", buffering=1)

    def emit(msg):
        out.write(json.dumps(jsonable(msg), default=str) + "\n")
        out.flush()

    import measure                      # imports torch: the slow import, done once
    measure.setup_torch()
    dev = measure.Device(args.device, flush_bytes=args.flush_mib << 20)
    emit({"event": "ready", "pid": os.getpid()})

    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        t0 = time.monotonic()
        poisoned = None
        try:
            if job["op"] == "calibrate":
                record = measure.calibrate(dev, **job.get("sizes", {}))
            else:
                record = measure.run_problem(job, dev, emit)
        except measure.Poisoned as exc:
            poisoned = exc.variant
            record = {"error": "sticky CUDA error in %s: %s" % (exc.variant, exc),
                      "poisoned": exc.variant}
        except Exception as exc:        # noqa: BLE001 - reported, never fatal
            record = {"error": measure.short_error(exc),
                      "traceback": traceback.format_exc()[-3000:]}
            if not dev.healthy():
                poisoned = "problem"
                record["poisoned"] = poisoned
        record["worker_seconds"] = round(time.monotonic() - t0, 2)
        emit({"event": "result", "record": record})
        if poisoned:
            sys.stdout.flush()
            os._exit(EXIT_POISONED)     # the context is unusable: end at once
        dev.free()
    out.close()


if __name__ == "__main__":
    main()
