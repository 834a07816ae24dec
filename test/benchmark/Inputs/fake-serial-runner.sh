#!/bin/sh
# A kfuse-runner for the tests of benchmarks/serial/gpu-run, faked (no GPU here): writes the
# bundle's results.tsv with every variant verified on its entries' first binding, and with a
# speedup (the variant's number plus 1) when --no-time is not given. Notes its arguments in
# the bundle's calls.txt.
for dir in "$@"; do :; done
timed=yes
for a in "$@"; do [ "$a" = --no-time ] && timed=; done
echo "$*" >>"$dir/calls.txt"
for a in "$@"; do [ "$a" = --build-only ] && exit 0; done
entry=$(awk '$1 == "entry" { print $2; exit }' "$dir/manifest.txt")
{
  printf 'variant\tentry\tbinding\tstatus\treason\tmedian_ms\tp10_ms\tp90_ms\treps\tspeedup\tci_lo\tci_hi\tmad_ms\tkind\n'
  awk '$1 == "variant" { print $2 }' "$dir/manifest.txt" | while read -r v; do
    n=${v#v}
    [ "$v" = ref ] && n=0
    if [ -n "$timed" ]; then
      printf '%s\t%s\tn=1\t%s\tverified (faked)\t1\t1\t1\t5\t%s\t\t\t0\ttune\n' "$v" "$entry" \
        "$([ "$v" = ref ] && echo ok || echo faster)" "$([ "$v" = ref ] && echo || echo $((n + 1)))"
    else
      printf '%s\t%s\tn=1\tok\tverified (faked)\t\t\t\t\t\t\t\t\ttune\n' "$v" "$entry"
    fi
  done
} >"$dir/results.tsv"
