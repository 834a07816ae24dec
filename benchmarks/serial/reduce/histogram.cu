// serial: histogram: hist[b] = how many i have bin[i] == b (hist zeroed first, then hist[bin[i]] += 1)
// kind: reduction
// expect: parallel
#include <cuda_runtime.h>

__global__ void histogram_serial(int n, int nbins, const int *bin, int *hist) {
  for (int b = 0; b < nbins; ++b)
    hist[b] = 0;
  for (int i = 0; i < n; ++i)
    hist[bin[i]] += 1;
}

// kfuse: in bin int32[n]
// kfuse: out hist int32[nbins]
// kfuse: init bin int(0,nbins)
// kfuse: assume nbins >= 1
// kfuse: tune n=1048576 nbins=256
// kfuse: check n=1001 nbins=17
extern "C" void histogram(const int *bin, int *hist, int n, int nbins, cudaStream_t stream) {
  histogram_serial<<<1, 1, 0, stream>>>(n, nbins, bin, hist);
}
