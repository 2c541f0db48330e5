#!/bin/bash
# Call 1 (s24): the cluster size of held rows tuned at run time (runtime/row_cluster_tuner.h).
# On one machine, in this order:
# - the GPU's name and its resident clusters (the probe, bench/probes/cluster_residency.cu);
# - the GPU tests of the runtime and fusion changes since the last GPU run (s23's review commit and
#   this change): loaded kernels, the device's cluster table, every row kernel against the CPU
#   reference with the new RowGpuTest.ClustersOfHeldRowsThatRunInWavesAreTuned, and the CLI's tests;
# - the few-row cases (held_cases.txt, in .gpu/graphs4) timed under kiln_base (1f44765: clusters
#   of 8 for held rows, as main) and kiln (this change), twice in turn, 50 iterations, no check;
#   kiln's tuning notes come with them;
# - compute-sanitizer's memcheck of layernorm [32, 2097152] bf16 over clusters of 4 (untuned: tuning under
#   memcheck would take minutes);
# - kiln run's check against the CPU reference of the held cases, for the time left.
# Results stay in /tmp/o1 and are tarred into $OUT at each step: only a few files come back.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-420}
start=$(date +%s)
o=/tmp/o1; mkdir -p $o
here=$(dirname "$0")
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call1.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
.gpu/bin/cluster_residency > $o/cluster_residency.txt 2>&1
save
KILN_CACHE_DIR=/tmp/kc1 timeout 170 .gpu/run runtime_test \
  --gtest_filter='LoadedKernelGpuTest.*:LoadedKernelTest.*:RowGpuTest.*:DeviceGpuTest.*:RowClusterCandidates*:ClusterWaves*' \
  > $o/tests_runtime.log 2>&1
echo "runtime tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
KILN_CACHE_DIR=/tmp/kc1 timeout 90 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_cli.log 2>&1
echo "cli tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
for round in 1 2; do
  for c in $(cat $here/held_cases.txt); do
    [ $(left) -lt 90 ] && { echo "timing stopped at $c round $round" >> $o/log.txt; break 2; }
    for b in kiln_base kiln; do
      echo "== $c $b $round" >> $o/times.txt
      KILN_CACHE_DIR=/tmp/kc1 timeout 60 .gpu/run $b run .gpu/graphs4/$c.textproto --iters=50 --no-check 2>&1 \
        | grep -E "^f[0-9]+_|^total|clusters |error|Error" >> $o/times.txt
    done
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $o/log.txt; save
KILN_CACHE_DIR=/tmp/kc1 timeout 60 compute-sanitizer --tool memcheck --print-limit 5 \
  .gpu/run kiln run .gpu/graphs4/layernorm_32x2097152_bf16.textproto --iters=1 --no-check --autotune=off \
  --max-cluster-blocks=4 > $o/memcheck.log 2>&1
echo "memcheck rc=$?" >> $o/log.txt; save
for c in $(grep -E "^(layernorm|rmsnorm|softmax)" $here/held_cases.txt); do
  [ $(left) -lt 25 ] && { echo "checks stopped at $c" >> $o/log.txt; break; }
  echo "== $c" >> $o/checks.txt
  KILN_CACHE_DIR=/tmp/kc1 timeout 30 .gpu/run kiln run .gpu/graphs4/$c.textproto --iters=1 2>&1 \
    | grep -i -E "check|match|error|differ|clusters tuned" >> $o/checks.txt
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
