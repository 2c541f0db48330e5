#!/bin/bash
# Call 3 (s22; on the first machine, before call 1's sweep): why the rows split over clusters miss
# their same-size copy. Each case under kiln's clusters of 8, under --max-cluster-blocks=4 and 2,
# and (the streamed ones) under kiln_t512, main with blocks of 512 threads instead of 1024 for a
# streamed reduction's clusters; then ncu's launch, occupancy, memory and warp-state sections of
# kiln's kernels. kiln_t512 is main built with kiln_t512.patch (apply it by hand: one line of
# fusion/row_schedule.cc), copied into .gpu/bin beside the bundle's kiln.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu3.txt
# The clusters the GPU holds at once (bench/probes/cluster_residency.cu, built here with nvcc).
.gpu/bin/cluster_residency > $OUT/cluster_residency.txt 2>&1
mkdir -p $OUT/variants $OUT/ncu
for g in .gpu/graphs3/*.textproto; do
  c=$(basename $g .textproto)
  for v in "kiln" "kiln --max-cluster-blocks=4" "kiln --max-cluster-blocks=2" "kiln_t512"; do
    case "$v" in kiln_t512) case $c in logsumexp*) ;; *) continue ;; esac ;; esac
    tag=$(echo "$v" | tr -c 'a-z0-9\n' '_')
    KILN_CACHE_DIR=/tmp/kc3 timeout 60 .gpu/run $v run $g --iters=50 --no-check > $OUT/variants/${c}__$tag.txt 2>&1
  done
done
echo "variants done $(( $(date +%s) - start ))s" > $OUT/call3.log
for c in logsumexp_32x2097152_bf16 layernorm_32x2097152_bf16 layernorm_523x128256_bf16; do
  g=.gpu/graphs3/$c.textproto
  KILN_CACHE_DIR=/tmp/kc3 timeout 90 ncu --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:f0_ -c 1 \
    .gpu/run kiln run $g --iters=1 --no-check > $OUT/ncu/$c.txt 2>&1
done
echo "ncu done $(( $(date +%s) - start ))s" >> $OUT/call3.log
