// REQUIRES: gpu
// RUN: rm -rf %t && cp -rpL %bundles/linear_relu %t
// RUN: cp %S/../planted/linear-relu-ok-tiled-gemm.cu %t/v1.cu && cp %S/../planted/linear-relu-ok-tiled-gemm.cu %t/v2.cu
// RUN: sed 's/"ref\.cu"/"v1.cu"/' %t/ref.shim.cu > %t/v1.shim.cu
// RUN: sed 's/"ref\.cu"/"v2.cu"/' %t/ref.shim.cu > %t/v2.shim.cu
// RUN: printf 'variant v2   v2.cu   user:v2.cu\n' >> %t/manifest.txt
// RUN: sed -i -e 's|    {"v1", "v1.cu", "user:v1.cu"},|&\n    {"v2", "v2.cu", "user:v2.cu"},|' -e 's|1, entries, 2, variants}|1, entries, 3, variants}|' %t/bundle.c
// RUN: %kfuse-runner %t
// RUN: awk -F'\t' '$14 == "tune" && $1 != "ref" { print $1, $4, ($11 > 0), ($11 <= $10), ($10 <= $12) }' %t/results.tsv | FileCheck %s
// RUN: %kfuse-runner --retime 1 %t
// RUN: awk -F'\t' '$14 == "tune" && $1 != "ref" && $11 != "" { n++ } END { print "intervals", n }' %t/results.tsv | FileCheck --check-prefix=ONE %s
//
// Two copies of the tiled GEMM (planted/linear-relu-ok-tiled-gemm.cu): their first-round
// times are within 10% of each other, so both are re-timed against the reference,
// interleaved, and both carry an interval (the records keep the better). With --retime 1,
// only the first does.
// CHECK: v1 faster 1 1 1
// CHECK: v2 faster 1 1 1
// ONE: intervals 1
