#!/usr/bin/env bash
# compile-planted.sh PLANTED_DIR WORK_DIR: compile every hand-made reference bundle's shim
# and every planted variant (and timing test, in PLANTED_DIR/../timing) with its shim, as
# kfuse-runner would build them (but for sm_90, with no GPU needed); fail when nvcc
# rejects one. A variant that is meant not
# to compile ("Caught by: the build") is skipped. Used by planted-compile.test.
set -u
planted=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
nvcc=${KFUSE_NVCC:-nvcc}
flags="-arch=sm_90 -shared -Xcompiler -fPIC -cudart shared -lcublas"

jobs=()
for ref in "$planted"/Inputs/*/; do
  name=$(basename "$ref")
  cp -rL "$ref" "$work/$name"
  jobs+=("$work/$name ref")
done
for variant in "$planted"/*.cu "$planted"/../timing/*.cu; do
  grep -q "Caught by: the build" "$variant" && continue
  # a test with no code of its own copies its variants from here (timing/retime-close.cu)
  grep -q 'extern "C"' "$variant" || continue
  ref=$(sed -n 's|.*%bundles/\([a-z_]*\) .*|\1|p' "$variant" | head -n 1)
  stem=$(basename "$variant" .cu)
  dir="$work/$stem"
  cp -rL "$planted/Inputs/$ref" "$dir"
  cp "$variant" "$dir/v1.cu"
  sed 's/"ref\.cu"/"v1.cu"/' "$dir/ref.shim.cu" > "$dir/v1.shim.cu"
  jobs+=("$dir v1")
done

compile() {
  dir=${1% *}
  stem=${1#* }
  if ! (cd "$dir" && $nvcc $flags -o "$stem.so" "$stem.shim.cu") > "$dir/$stem.log" 2>&1; then
    echo "FAILED: $dir/$stem.shim.cu"
    cat "$dir/$stem.log"
    return 1
  fi
  echo "compiled $(basename "$dir")/$stem"
}
export -f compile
export nvcc flags
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -I{} bash -c 'compile "$@"' _ {}
