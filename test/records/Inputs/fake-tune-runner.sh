#!/bin/sh
# A kfuse-runner for test/records/gather.test, faked (no GPU here): with --build-only it does
# nothing; else it writes the bundle's device.tsv (an H200's) and results.tsv with the
# reference verified and every variant verified and timed on the entry's tune binding, the
# variant's speedup its number plus 1 (v1 re-timed, faster). Notes its arguments in the bundle's calls.txt.
# FAKE_PRUNE="2 3": those variants are pruned before measuring (they spill), as the runner says.
for dir in "$@"; do :; done
echo "$*" >>"$dir/calls.txt"
for a in "$@"; do [ "$a" = --build-only ] && exit 0; done
entry=$(awk '$1 == "entry" { print $2; exit }' "$dir/manifest.txt")
tune=$(awk '$1 == "tune" { $1 = ""; sub(/^ /, ""); print; exit }' "$dir/manifest.txt")
printf 'gpu\tsm_count\tcompute_capability\tdriver_version\tcuda_driver_version\truntime_version\tnvcc_version\tnvcc_flags\tl2_bytes\tmemory_bytes\n' >"$dir/device.tsv"
printf 'NVIDIA H200\t132\t9.0\t580.159.04\t13.0\t13.0\tCuda compilation tools, release 13.0, V13.0.88\t-O3 -arch=sm_90\t62914560\t150754820096\n' >>"$dir/device.tsv"
{
  printf 'variant\tentry\tbinding\tstatus\treason\tmedian_ms\tp10_ms\tp90_ms\treps\tspeedup\tci_lo\tci_hi\tmad_ms\tkind\n'
  awk '$1 == "variant" { print $2 }' "$dir/manifest.txt" | while read -r v; do
    if [ "$v" = ref ]; then
      printf 'ref\t%s\t%s\tok\tverified (faked)\t1\t1\t1\t50\t\t\t\t0\ttune\n' "$entry" "$tune"
    else
      n=${v#v}
      case " ${FAKE_PRUNE:-} " in
      *" $n "*)
        printf '%s\t%s\t%s\tfailed\tpruned: spills 16 bytes (stores 8, loads 8) in _Z1kPf, 32 registers; v1 of the same passes does not spill\t\t\t\t\t\t\t\t\ttune\n' "$v" "$entry" "$tune"
        continue ;;
      esac
      # v1 the re-timed one (faster, with an interval), the others first-round ratios
      if [ "$n" = 1 ]; then st=faster ci="1.9\t2.1"; else st=ok ci="\t"; fi
      printf "%s\t%s\t%s\t$st\tverified (faked)\t%s\t1\t1\t50\t%s\t$ci\t0\ttune\n" "$v" "$entry" "$tune" \
        "$(awk -v n="$n" 'BEGIN { print 1 / (n + 1) }')" "$((n + 1))"
    fi
  done
} >"$dir/results.tsv"
