// With ways=8 (the second variant), eight steps at a time into eight accumulators, combined
// as a balanced tree: fmaxf of pairs for a max, ((a + b) + (c + d)) + (...) for a sum. The
// variant compiles.
// REQUIRES: nvcc
// UNSUPPORTED: asan
// RUN: rm -rf %t && mkdir %t
// RUN: %kfuse --bundle %t/b %S/max-and-sum.cu --passes=split-accumulators --max-variants=2
// RUN: %strip-checks %t/b/manifest.txt | FileCheck --check-prefix=MANIFEST %s
// MANIFEST: variant v2 v2.cu split-accumulators(ways=8)@row_stats_entry#0
// RUN: %strip-checks %t/b/v2.cu | FileCheck %s
// CHECK: { // kfuse split-accumulators: m in 8 accumulators, 8 steps at a time
// CHECK: for (; kf_j + 7 * (long long)(blockDim.x) < (long long)(D); kf_j += 8 * (long long)(blockDim.x)) {
// CHECK: m = fmaxf(fmaxf(fmaxf(m, kf_m1), fmaxf(kf_m2, kf_m3)), fmaxf(fmaxf(kf_m4, kf_m5), fmaxf(kf_m6, kf_m7)));
// CHECK: s = ((s + kf_s1) + (kf_s2 + kf_s3)) + ((kf_s4 + kf_s5) + (kf_s6 + kf_s7));
// RUN: sh -c 'cd %t/b && %nvcc -Werror all-warnings -shared -Xcompiler -fPIC -o v2.so v2.shim.cu'
