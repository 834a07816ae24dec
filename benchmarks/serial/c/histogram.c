// serial: histogram: hist[b] = how many i have bin[i] == b, hist zeroed first (plain C)
// kind: reduction
// expect: parallel

// kfuse: in bin int32[n]
// kfuse: out hist int32[nbins]
// kfuse: init bin int(0,nbins)
// kfuse: assume nbins >= 1
// kfuse: tune n=1048576 nbins=256
// kfuse: check n=1001 nbins=17
void histogram(int n, int nbins, const int *bin, int *hist) {
  for (int b = 0; b < nbins; ++b)
    hist[b] = 0;
  for (int i = 0; i < n; ++i)
    hist[bin[i]] += 1;
}
