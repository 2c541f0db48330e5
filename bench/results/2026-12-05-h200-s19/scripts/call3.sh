#!/bin/bash
# Call 3 (s19): the 50 changed cases call 1 had no time to check, against the
# CPU reference (kernel caches warm from call 2), then ncu of main and the
# patch on the two kinds of case the patch made slower.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
for f in $(tail -n +23 .gpu/cases.txt); do
  KILN_CACHE_DIR=/tmp/kc_pairs .gpu/run kiln_pairs run .gpu/graphs/$f.textproto --iters=1 > /tmp/chk.txt 2>&1
  echo "$f rc=$? $(grep -i -m2 'check\|error' /tmp/chk.txt | tr '\n' ' ')"
  [ $(( $(date +%s) - start )) -gt 330 ] && break
done > $OUT/checks2.txt
echo "checks $(( $(date +%s) - start ))s" >> $OUT/checks2.txt
mkdir -p $OUT/ncu
for f in layernorm_1335x50257_bf16 logsumexp_16384x32768_bf16; do
  for b in main pairs; do
    KILN_CACHE_DIR=/tmp/kc_$b timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section LaunchStats --section SourceCounters -k regex:f0_ -c 1 .gpu/run kiln_$b run .gpu/graphs/$f.textproto --iters=1 --no-check \
      > $OUT/ncu/${f}_$b.txt 2>&1
  done
done
echo "all $(( $(date +%s) - start ))s" >> $OUT/checks2.txt
