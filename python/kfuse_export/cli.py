"""kfuse-export: a PyTorch module file in KernelBench's form, written out as reference CUDA
to kfuse's input contract (docs/export.md)."""
import argparse
import os
import sys
import tempfile

from . import __version__
from .errors import ExportError


def write_atomic(path, text):
    """Writes text to path through a temporary file in the same directory (nothing
    half-written is left behind)."""
    if path == "-":
        sys.stdout.write(text)
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".kfuse-export-", suffix=".cu", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def export_file(path, dynamic=True, lazy=True):
    """(text, info) of the module file at path."""
    import logging
    import warnings

    import torch
    # torch's own logs and the module's warnings are not the exporter's messages: a failed
    # way of capturing is said once, in the note
    logging.getLogger("torch").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore")

    from .capture import capture
    from .emit import export_source
    from .load import load
    problem = load(path, lazy=lazy)
    with torch.no_grad():
        cap = capture(problem, dynamic=dynamic)
    text, info = export_source(problem, cap)
    return problem, cap, text, info


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kfuse-export", description=__doc__)
    ap.add_argument("module", nargs="?", help="a Python file with Model, get_inputs() and get_init_inputs()")
    ap.add_argument("-o", "--output", default="-", help="the .cu to write ('-': standard output, the default)")
    ap.add_argument("--twin", metavar="FILE.py",
                    help="also write the PyTorch twin that benchmarks/run calls beside the .cu (a corpus of "
                         "exported problems)")
    ap.add_argument("--static", action="store_true",
                    help="every size fixed at the example's (no symbolic batch dimension)")
    ap.add_argument("--verify", action="store_true",
                    help="(needs a GPU) build the exported file with nvcc and run it against the module on the same "
                         "inputs: the twin check")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"), help="nvcc for --verify")
    ap.add_argument("-q", "--quiet", action="store_true", help="no notes on standard error")
    ap.add_argument("--version", action="store_true", help="print the version and exit")
    args = ap.parse_args(argv)
    if args.version:
        import torch
        print("kfuse-export %s (torch %s)" % (__version__, torch.__version__))
        return 0
    if not args.module:
        ap.print_usage(sys.stderr)
        print("kfuse-export: error: no module file given", file=sys.stderr)
        return 2
    try:
        problem, cap, text, info = export_file(args.module, dynamic=not args.static, lazy=not args.verify)
        if not args.quiet:
            print("%s: note: captured with %s%s" % (args.module, cap.method,
                                                   "; " + "; ".join(cap.fallbacks) if cap.fallbacks else ""),
                  file=sys.stderr)
        twin = None
        if args.twin:
            from .emit import twin_source
            twin = twin_source(problem, info, os.path.basename(args.output))
        write_atomic(args.output, text)
        if twin is not None:
            write_atomic(args.twin, twin)
        if args.verify:
            from .verify import twin_check
            ok, report = twin_check(problem, info, text, args.nvcc)
            print(report, file=sys.stderr if args.output == "-" else sys.stdout)
            return 0 if ok else 1
    except ExportError as e:
        print(e.render(args.module), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a failure of the exporter itself: said in one line, never a traceback
        print("%s: error: kfuse-export failed: %s: %s" % (args.module, type(e).__name__,
                                                        str(e).strip().splitlines()[0] if str(e).strip() else ""),
              file=sys.stderr)
        return 2
    return 0
