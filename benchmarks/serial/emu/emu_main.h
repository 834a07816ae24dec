// Driver appended by emu.py to each translated program: reads a spec file,
// allocates guarded buffers, loads their initial contents, calls one entry,
// writes every buffer back out.
//
// spec (argv[1]), one item a line:
//   entry NAME
//   buf IN_FILE OUT_FILE NBYTES     (a pointer parameter)
//   val LITERAL                     (an integer or floating parameter)
//   stream                          (the cudaStream_t parameter)
#include <chrono>
#include <fstream>
#include <sstream>

struct KfArg {
  int kind;  // 0 buf, 1 val, 2 stream
  void *p = nullptr;
  std::string s, in, out;
  size_t n = 0;
};

template <class T> T kf_conv(KfArg &a) {
  if constexpr (std::is_same_v<T, cudaStream_t>) {
    if (a.kind != 2) { fprintf(stderr, "EMU-ERROR: spec: expected stream\n"); exit(5); }
    return nullptr;
  } else if constexpr (std::is_pointer_v<T>) {
    if (a.kind != 0) { fprintf(stderr, "EMU-ERROR: spec: expected buf\n"); exit(5); }
    return (T)a.p;
  } else if constexpr (std::is_integral_v<T>) {
    if (a.kind != 1) { fprintf(stderr, "EMU-ERROR: spec: expected val\n"); exit(5); }
    return (T)strtoll(a.s.c_str(), nullptr, 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (a.kind != 1) { fprintf(stderr, "EMU-ERROR: spec: expected val\n"); exit(5); }
    return (T)strtod(a.s.c_str(), nullptr);
  } else {
    static_assert(sizeof(T) == 0, "unsupported entry parameter type");
  }
}

template <class R, class... A, size_t... I>
void kf_call_impl(R (*f)(A...), std::vector<KfArg> &v, std::index_sequence<I...>) {
  f(kf_conv<std::decay_t<A>>(v[I])...);
}
template <class R, class... A> void kf_call(R (*f)(A...), std::vector<KfArg> &v) {
  if (v.size() != sizeof...(A)) {
    fprintf(stderr, "EMU-ERROR: spec has %zu parameters, the entry %zu\n", v.size(), sizeof...(A));
    exit(5);
  }
  kf_call_impl(f, v, std::index_sequence_for<A...>{});
}

inline std::map<std::string, std::function<void(std::vector<KfArg> &)>> &kf_entries() {
  static std::map<std::string, std::function<void(std::vector<KfArg> &)>> m;
  return m;
}
struct KfEntryReg {
  KfEntryReg(const char *name, std::function<void(std::vector<KfArg> &)> fn) { kf_entries()[name] = fn; }
};
#define KF_ENTRY(name) static KfEntryReg kf_reg_##name(#name, [](std::vector<KfArg> &v) { kf_call(&name, v); });

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s SPEC\n", argv[0]); return 2; }
  kf_install_handlers();
  std::ifstream sf(argv[1]);
  std::string line, entry;
  std::vector<KfArg> args;
  while (std::getline(sf, line)) {
    std::istringstream ls(line);
    std::string k;
    ls >> k;
    if (k == "entry") ls >> entry;
    else if (k == "buf") {
      KfArg a; a.kind = 0; ls >> a.in >> a.out >> a.n; args.push_back(a);
    } else if (k == "val") {
      KfArg a; a.kind = 1; ls >> a.s; args.push_back(a);
    } else if (k == "stream") {
      KfArg a; a.kind = 2; args.push_back(a);
    }
  }
  auto it = kf_entries().find(entry);
  if (it == kf_entries().end()) { fprintf(stderr, "EMU-ERROR: no entry %s\n", entry.c_str()); return 5; }
  for (auto &a : args) {
    if (a.kind != 0) continue;
    a.p = kf_alloc_guarded(a.n, -1);
    FILE *f = fopen(a.in.c_str(), "rb");
    if (!f || fread(a.p, 1, a.n, f) != a.n) { fprintf(stderr, "EMU-ERROR: cannot read %s\n", a.in.c_str()); return 5; }
    fclose(f);
  }
  auto t0 = std::chrono::steady_clock::now();
  it->second(args);
  auto t1 = std::chrono::steady_clock::now();
  for (auto &a : args) {
    if (a.kind != 0) continue;
    FILE *f = fopen(a.out.c_str(), "wb");
    if (!f || fwrite(a.p, 1, a.n, f) != a.n) { fprintf(stderr, "EMU-ERROR: cannot write %s\n", a.out.c_str()); return 5; }
    fclose(f);
  }
  size_t leaked = kf_allocs().size();
  for (auto &a : args) if (a.kind == 0) leaked--;
  fprintf(stderr, "EMU-DONE: %.6f s, %ld launches (%ld run in TSan chunks), %zu scratch allocations not freed\n",
          std::chrono::duration<double>(t1 - t0).count(), kf_launch_count, kf_chunked_launches, leaked);
  return 0;
}
