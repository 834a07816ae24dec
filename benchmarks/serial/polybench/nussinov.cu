// serial: nussinov: RNA secondary structure by dynamic programming, the most base pairs of seq[i..j] for every i < j
// kind: medley
// expect: parallel
// As written neither loop has independent iterations: table[i][j] reads table[i][j-1] of the
// same row (distance (0,1) over the j loop) and table[i+1][j], table[i+1][j-1] and table[k+1][j]
// of rows finished by earlier iterations of the i loop (distance (1,*)). A skew to fronts of
// ii + j (the anti-diagonals) has them: kfuse's wavefront (session 24; until then this program
// was one that must be refused).
// port: ports/nussinov.cu
#include <cuda_runtime.h>

// Bases are coded 0..3 (A, C, G, U); b and 3 - b pair (A-U, C-G). The rows are filled from
// the last to the first, each from left to right.
__global__ void nussinov_serial(const int *seq, int *table, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      table[i * n + j] = 0;
  for (int ii = 0; ii < n; ++ii) {
    int i = n - 1 - ii;
    for (int j = i + 1; j < n; ++j) {
      int best = max(table[i * n + j - 1], table[(i + 1) * n + j]);
      int pair = (j - i > 1 && seq[i] + seq[j] == 3) ? 1 : 0;
      best = max(best, table[(i + 1) * n + j - 1] + pair);
      for (int k = i + 1; k < j; ++k)
        best = max(best, table[i * n + k] + table[(k + 1) * n + j]);
      table[i * n + j] = best;
    }
  }
}

// kfuse: in seq int32[n]
// kfuse: out table int32[n][n]
// kfuse: init seq int(0,4)
// kfuse: assume n >= 1
// kfuse: tune n=180
// kfuse: check n=37
extern "C" void nussinov(const int *seq, int *table, int n, cudaStream_t stream) {
  nussinov_serial<<<1, 1, 0, stream>>>(seq, table, n);
}
