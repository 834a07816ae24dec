#!/usr/bin/env bash
# run-gpu-tests.sh: build kfuse-runner alone (cmake -DKFUSE_RUNNER_ONLY=ON) and run every
# test under test/runner that says `REQUIRES: gpu`, on this machine's GPU, without lit:
# each test's RUN lines run in bash with lit's substitutions, and FileCheck is LLVM's when
# it is on PATH, else filecheck-lite.py beside this script. The reference bundles are built
# once and copied into each test (as %bundles), so a test builds only its own variant.
# Tests run in parallel, except the timing tests (test/runner/timing/), which run alone
# afterwards. Prints a table (test | expected | got | PASS/FAIL) and exits 1 when any test
# failed. Each test's output is in BUILD_DIR/gpu-tests/t/<test>.log.
# With KFUSE=PATH (kfuse itself, e.g. from gpu-host-pack's /opt/kfuse-host), the GPU tests
# of kfuse's commands under test/ (test/passes, test/select, ...) run too, with %kfuse and
# %corpus substituted; kfuse finds the runner through KFUSE_RUNNER, set to the one built here.
# The exporter's GPU tests (test/export) run with this machine's python3 and its torch.
#
# GPU_TESTS=REGEX runs only the tests whose path matches REGEX (grep -E).
# usage: test/runner/run-gpu-tests.sh [-j N] [BUILD_DIR]   (default BUILD_DIR:
#        /tmp/kfuse-runner-gpu; N: parallel tests, default 6)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
jobs=6
if [ "${1:-}" = "-j" ]; then
  jobs=$2
  shift 2
fi
build=${1:-/tmp/kfuse-runner-gpu}
work=$build/gpu-tests
start=$(date +%s)

mkdir -p "$build"
echo "== building kfuse-runner in $build"
if ! { cmake -S "$src" -B "$build" -DKFUSE_RUNNER_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build "$build" -j "$(nproc)"; } >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "build failed"
  exit 2
fi
runner=$build/driver/kfuse-runner
selftest=$build/runner/runner-selftest
"$selftest" | tail -n 1
nvidia-smi -L 2>/dev/null | head -n 1

rm -rf "$work"
mkdir -p "$work/bin" "$work/bundles" "$work/t"
if ! command -v FileCheck >/dev/null 2>&1; then
  printf '#!/bin/sh\nexec python3 "%s" "$@"\n' "$here/filecheck-lite.py" >"$work/bin/FileCheck"
  chmod +x "$work/bin/FileCheck"
fi
if ! command -v not >/dev/null 2>&1; then
  printf '#!/bin/sh\n"$@"\n[ $? -ne 0 ]\n' >"$work/bin/not"
  chmod +x "$work/bin/not"
fi
export PATH="$work/bin:$PATH"

echo "== building the reference bundles"
for ref in "$here"/planted/Inputs/*/; do
  name=$(basename "$ref")
  cp -rL "$ref" "$work/bundles/$name"
  if ! "$runner" --only ref --no-time "$work/bundles/$name" >"$work/bundles/$name.log" 2>&1; then
    cat "$work/bundles/$name.log"
    echo "the reference bundle $name does not build or verify"
    exit 2
  fi
  rm -rf "$work/bundles/$name/results.tsv" "$work/bundles/$name/device.tsv" "$work/bundles/$name/logs"
done

# test_name FILE: the test's name, relative to test/runner (or to test/ for kfuse's own)
test_name() {
  case $1 in
    "$here"/*) echo "${1#"$here"/}" ;;
    *) echo "${1#"$src/test"/}" ;;
  esac
}

# lit.cfg.py's %strip-checks: a file without the test's own `// WORD:` directive lines
strip_checks="sed -E '/^[[:space:]]*[/][/] [A-Z][A-Z0-9_-]*:/d'"

# run_test FILE: run FILE's RUN lines; write <name>.status (PASS or FAIL) and .log
run_test() {
  local file=$1 name dir t status=PASS
  name=$(test_name "$file")
  t=$work/t/$name.tmp
  dir=$(dirname "$file")
  mkdir -p "$(dirname "$t")"
  {
    sed -n 's/^.*RUN: *//p' "$file" | while IFS= read -r line; do
      line=${line//%kfuse-export/env PYTHONPATH=$src/python python3 -m kfuse_export}
      line=${line//%\{python-torch\}/env PYTHONPATH=$src/python python3}
      line=${line//%kfuse-runner/$runner}
      line=${line//%runner-gpu-selftest/$build/runner/runner-gpu-selftest}
      line=${line//%runner-selftest/$selftest}
      line=${line//%kfuse/${KFUSE:-kfuse}}
      line=${line//%corpus/$src/benchmarks/corpus}
      line=${line//%bundles/$work/bundles}
      line=${line//%python/python3}
      line=${line//%strip-checks/$strip_checks}
      line=${line//%nvcc/nvcc -arch=sm_90}
      line=${line//%srcroot/$src}
      line=${line//%t/$t}
      line=${line//%s/$file}
      line=${line//%S/$dir}
      echo "\$ $line"
      if ! bash -o pipefail -c "$line"; then
        echo "FAILED: $line"
        exit 1
      fi
    done
  } >"$work/t/$name.log" 2>&1 || status=FAIL
  echo "$status" >"$work/t/$name.status"
}

tests=$(grep -l -E 'REQUIRES:.*\bgpu\b' "$here"/*.test "$here"/planted/*.cu "$here"/timing/*.cu 2>/dev/null)
if [ -n "${KFUSE:-}" ]; then
  export KFUSE_RUNNER=$runner
  tests="$tests
$(grep -rl -E 'REQUIRES:.*\bgpu\b' --include='*.test' "$src/test" | grep -v "^$here/" | sort)"
fi
if [ -n "${GPU_TESTS:-}" ]; then
  tests=$(echo "$tests" | grep -E "$GPU_TESTS")
fi
parallel=$(echo "$tests" | grep -v '/timing/')
serial=$(echo "$tests" | grep '/timing/')
echo "== running $(echo "$tests" | wc -l) GPU tests ($jobs at a time, then the timing tests alone)"
for file in $parallel; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n
  done
  run_test "$file" &
done
wait
for file in $serial; do
  run_test "$file"
done

# the table
clip() { local s=$1; [ ${#s} -gt "$2" ] && s="${s:0:$(($2 - 3))}..."; printf '%s' "$s"; }
printf '\n%-44s | %-50s | %-60s | %s\n' test expected got result
printf '%.0s-' $(seq 1 170)
echo
failed=0
for file in $tests; do
  name=$(test_name "$file")
  status=$(cat "$work/t/$name.status" 2>/dev/null || echo FAIL)
  expected=$(grep -E '^(//|#) (CHECK|CHECK-DAG|EXIT|TIMES|AGAIN|TOUCHED):' "$file" | head -n 2 |
             sed -E 's/^(\/\/|#) //' | tr '\n' ' ')
  got=""
  results=$work/t/$name.tmp/results.tsv
  if [ -f "$results" ]; then
    got=$(awk -F'\t' '$1 == "v1" && !seen[$2]++ { printf "%s %s %s; ", $2, $4, $5 }' "$results")
    [ -n "$got" ] || got=$(awk -F'\t' 'NR == 2 { print $1, $2, $4, $5 }' "$results")
  fi
  printf '%-44s | %-50s | %-60s | %s\n' "$(clip "$name" 44)" "$(clip "$expected" 50)" \
    "$(clip "$got" 60)" "$status"
  if [ "$status" != PASS ]; then
    failed=$((failed + 1))
  fi
done
total=$(echo "$tests" | wc -l)
echo
echo "$((total - failed)) passed, $failed failed ($(($(date +%s) - start)) s; logs in $work/t)"
if [ "$failed" -gt 0 ]; then
  for file in $tests; do
    name=$(test_name "$file")
    if [ "$(cat "$work/t/$name.status" 2>/dev/null)" != PASS ]; then
      echo "---- $name"
      tail -n 25 "$work/t/$name.log"
    fi
  done
  exit 1
fi
