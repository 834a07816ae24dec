#!/bin/bash
# On the GPU host: build graph_pattern.cu against level3/034's reference and a cuda-graph
# variant of it, and run it (KFUSE_GRAPH_LOG set, so that a capture that fails says why).
#   benchmarks/variants/experiments/probe/graph_pattern.sh VARIANT.cu
# VARIANT.cu: `kfuse benchmarks/corpus/level3/034_vanilla_rnn_hidden.cu --passes=gemm-cublas,pool-scratch,cuda-graph --emit=transformed -o VARIANT.cu`
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
variant=${1:?usage: graph_pattern.sh VARIANT.cu}
dir=$(mktemp -d)
nvcc -O2 -arch=sm_90 -shared -Xcompiler -fPIC -Xlinker -Bsymbolic -o "$dir/libref.so" \
  "$root/benchmarks/corpus/level3/034_vanilla_rnn_hidden.cu" -lcublas -lcublasLt
sed 's/^extern "C" void vanilla_rnn_hidden(/extern "C" void v_vanilla_rnn_hidden(/' "$variant" > "$dir/v.cu"
nvcc -O2 -arch=sm_90 -shared -Xcompiler -fPIC -Xlinker -Bsymbolic -o "$dir/libv.so" "$dir/v.cu" -lcublas -lcublasLt
nvcc -O2 -arch=sm_90 -o "$dir/graph_pattern" "$here/graph_pattern.cu" "$dir/libref.so" "$dir/libv.so" \
  -Xlinker -rpath="$dir"
KFUSE_GRAPH_LOG=1 "$dir/graph_pattern"
