#!/bin/bash
# Call A (s29 plan): s28's three builds side by side, the choice among them by a rule fixed before
# the call (decide.py), then the sweep on the chosen build for the time left.
# - kiln_base: main's product code (92178bb);
# - kiln_words: `git revert 92178bb`, then s28's scripts/words_without_hint.patch: bf16 elements
#   read from their words, the tuning cache keeping launch bounds and cluster sizes, and tuning keys
#   that hash the device library;
# - kiln_full: `git revert 92178bb`, the above plus the cluster exchange's polls sleeping.
# Steps, the A/B early in case the call is cut short:
# - RowGpuTest, LoadedKernelGpuTest and AutotunerGpuTest, then RunCliGpuTest, with kiln_full's tests;
# - the A/B cases (s28's ab_cases.txt), each with the three builds in turn, 100 iterations each;
# - compute-sanitizer memcheck of kiln_full's unaligned cluster kernel, untuned, one launch;
# - decide.py's choice; the sweep state of this card without the cases the choice runs with other
#   code than the build that measured them (changed/<card>_<choice>.txt); the sweep, then profiles
#   of its misses, for the time left.
# The first argument caps the call (seconds).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-570}
start=$(date +%s)
o=/tmp/oA; mkdir -p $o
s=bench/results/2026-12-08-s29
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/callA.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
for b in kiln_base kiln_words kiln_full; do .gpu/run $b --version >> $o/kiln_versions.txt 2>&1; done
cp .gpu/bin/kiln_full .gpu/bin/kiln
KILN_CACHE_DIR=/tmp/kcAt timeout 150 .gpu/run runtime_test \
  --gtest_filter='RowGpuTest.*:LoadedKernelGpuTest.*:AutotunerGpuTest.*' > $o/tests_runtime.log 2>&1
stamp "runtime tests" $?
KILN_CACHE_DIR=/tmp/kcAt timeout 60 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_frontends.log 2>&1
stamp "frontends tests" $?
for c in $(cat bench/results/2026-12-07-s28/scripts/ab_cases.txt); do
  for b in kiln_base kiln_words kiln_full; do
    [ $(left) -lt 200 ] && break 2
    KILN_CACHE_DIR=/tmp/kc_$b timeout 40 .gpu/run $b run .gpu/graphs11/$c.textproto --iters=100 --no-check \
      > $o/time_${c}_${b}_1.txt 2>&1
  done
done
stamp "timing" 0
KILN_CACHE_DIR=/tmp/kc_full timeout 60 compute-sanitizer --tool memcheck --error-exitcode 7 \
  .gpu/run kiln_full run .gpu/graphs11/layernorm_1335x50257_bf16.textproto --iters=1 --autotune=off \
  > $o/memcheck_layernorm_1335x50257_bf16.txt 2>&1
stamp "memcheck layernorm_1335x50257_bf16" $?
python3 $s/scripts/decide.py $o > $o/decision.txt 2>&1
choice=$(tail -1 $o/decision.txt)
case $choice in base|words|full) ;; *) choice=base ;; esac
cp .gpu/bin/kiln_$choice .gpu/bin/kiln
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
source=bench/results/2026-12-04-h200-s15/sweep/sweep.json
[ $card = h100 ] && source=bench/results/2026-12-07-s28/sweep-h100/sweep.json
python3 $s/scripts/seed.py --changed $s/changed/${card}_$choice.txt --sweep $source \
  --out .gpu/state/$card.json >> $o/log.txt 2>&1
stamp "chose $choice, seeded the $card sweep" $?
bash $s/scripts/sweep_for.sh $(( $(left) - 5 )) $o callA.tgz
