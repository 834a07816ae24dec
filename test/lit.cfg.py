# lit configuration for kfuse. Substitutions:
#   %kfuse          the kfuse compiler
#   %kfuse-runner   the GPU runner
#   %kfuse-launch   the compiler launcher (a link to kfuse)
#   %corpus         benchmarks/corpus
#   %srcroot, %objroot  the source tree and the build tree
#   %nvcc           nvcc -arch=sm_90 (compile-only tests need no GPU)
#   %kfuse-export   the exporter (python/kfuse_export) run by the torch environment's Python
# Features: `gpu` when a CUDA GPU answers nvidia-smi; `asan` in a sanitized build; `torch`
# when $KFUSE_TORCH_PYTHON names a Python with torch (scripts/torch-env makes one), outside
# the sanitized build (the exporter is Python; its tests run once).
import os
import shutil
import subprocess

import lit.formats

config.name = "kfuse"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test", ".c"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kfuse_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, "/usr/local/cuda/bin", config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "CUDA_VISIBLE_DEVICES"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

bindir = config.kfuse_obj_root
torch_python = os.environ.get("KFUSE_TORCH_PYTHON", "")
if torch_python and os.access(torch_python, os.X_OK) and not config.sanitized:
    config.available_features.add("torch")
    config.environment["PYTHONPATH"] = os.path.join(config.kfuse_src_root, "python")
    config.environment["KFUSE_TORCH_PYTHON"] = torch_python
    config.substitutions.append(("%kfuse-export", "%s -m kfuse_export" % torch_python))
    config.substitutions.append(("%torch-bin", os.path.dirname(torch_python)))
    config.substitutions.append(("%{python-torch}", torch_python))
config.substitutions.append(("%kfuse-runner", os.path.join(bindir, "driver", "kfuse-runner")))
config.substitutions.append(("%kfuse-launch", os.path.join(bindir, "driver", "kfuse-launch")))
config.substitutions.append(("%kfuse", os.path.join(bindir, "driver", "kfuse")))
config.substitutions.append(("%corpus", os.path.join(config.kfuse_src_root, "benchmarks", "corpus")))
config.substitutions.append(("%srcroot", config.kfuse_src_root))
config.substitutions.append(("%objroot", config.kfuse_obj_root))
config.substitutions.append(("%nvcc", "nvcc -arch=sm_90"))
config.substitutions.append(("%python", "python3"))
# A test's output that copies the test file keeps its `// CHECK:` lines, which FileCheck would
# then match against themselves: `%strip-checks FILE | FileCheck %s` reads FILE without
# them (every line that is a `// WORD:` comment, WORD in capitals: a directive of the test's).
config.substitutions.append(("%strip-checks", "sed -E '/^[[:space:]]*[/][/] [A-Z][A-Z0-9_-]*:/d'"))

# Tests never see the user's tuning records: the default location points at nothing.
config.environment["KFUSE_RECORDS"] = os.path.join(config.test_exec_root, "no-such-records.db")
# Tests take the rule order, which they were written against, not the built-in ranker's
# (retrained with every new record); test/ranker/builtin.test checks the built-in one.
config.environment["KFUSE_RANKER"] = "none"

if config.sanitized:
    config.available_features.add("asan")
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

def have_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=30).returncode == 0
    except Exception:
        return False

if have_gpu():
    config.available_features.add("gpu")
if shutil.which("nvcc", path=config.environment["PATH"]):
    config.available_features.add("nvcc")
