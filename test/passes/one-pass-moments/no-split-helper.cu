// The block combines its sums in a __device__ helper that the model does not see into, so
// the rows are not split across a cluster (the split's only variant would be the same
// text): --bundle makes the one variant.
// RUN: rm -rf %t && mkdir %t
// RUN: %kfuse --bundle %t/b %S/helper-and-apply-loop.cu --passes=one-pass-moments --max-variants=4
// RUN: %strip-checks %t/b/manifest.txt | FileCheck %s
// CHECK: variant v1 v1.cu one-pass-moments@gn#0
// CHECK-NOT: split=
