#!/bin/bash
# Call 1 (s10): racecheck of the exact-f32 FFMA kernels (one launch each, the rest unchecked);
# ncu of the sweep's slower memory-bound cases.
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d/san /tmp/d/ncu
G=.gpu/graphs
start=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
compute-sanitizer --help > /tmp/d/san/help.txt 2>&1
filt=""
grep -q -- "--kernel-name" /tmp/d/san/help.txt && filt="--kernel-name kns=f0_matmul"
[ -z "$filt" ] && grep -q -- "--filter" /tmp/d/san/help.txt && filt="--filter kns=f0_matmul"
lc=""; grep -q -- "--launch-count" /tmp/d/san/help.txt && lc="--launch-count 2"
echo "filter: $filt $lc" > $OUT/sanitizer.txt
for g in logsumexp_523x128256_bf16 logsumexp_523x128256_f32 softmax_523x128256_bf16 softmax_512x131071_f32 \
         sum_128x524288_bf16 layernorm_16384x32768_bf16 rmsnorm_16396x4093_bf16 softmax_67108x1000_bf16 \
         max_524288x128_bf16 transpose10_4093x8191_bf16; do
  .gpu/run kiln run $G/$g.textproto --iters=20 > /tmp/d/ncu/$g.run.txt 2>&1
  timeout 60 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/d/ncu/$g .gpu/run kiln run $G/$g.textproto --iters=1 --no-check > /tmp/d/ncu/$g.ncu.log 2>&1
  ncu --import /tmp/d/ncu/$g.ncu-rep --page details > /tmp/d/ncu/$g.details.txt 2>&1
  ncu --import /tmp/d/ncu/$g.ncu-rep --page source --csv --print-source sass > /tmp/d/ncu/$g.sass.csv 2>/dev/null
  echo "$g $(( $(date +%s) - start ))s" >> $OUT/ncu_progress.txt
done
# Fill the kernel cache first so the sanitized runs do not compile.
for cfg in 128x128x8:2:8 128x128x8:3:8 128x128x16:3:8 256x128x16:4:8; do
  for sk in "" ":split-k=2"; do
    .gpu/run kiln run $G/mmf32_64x128x1024.textproto --autotune=off --iters=1 --matmul-tile=$cfg$sk > /dev/null 2>&1
  done
done
run_race() {
  local cfg=$1 log=/tmp/d/san/race-${1//:/_}.log
  local t0=$(date +%s)
  timeout 80 compute-sanitizer --tool racecheck --racecheck-report hazard $filt $lc --error-exitcode 99 \
    .gpu/run kiln run $G/mmf32_64x128x1024.textproto --autotune=off --iters=1 --matmul-tile=$cfg > $log 2>&1
  echo "racecheck $cfg rc=$? $(( $(date +%s) - t0 ))s $(grep -E 'RACECHECK SUMMARY' $log | tail -1) $(grep -o 'check: .*' $log | head -1)" >> $OUT/sanitizer.txt
}
for cfg in 128x128x8:2:8 128x128x8:3:8 128x128x16:3:8 256x128x16:4:8; do
  run_race $cfg &
  run_race $cfg:split-k=2 &
  wait
done
echo "sanitizers done $(( $(date +%s) - start ))s" >> $OUT/sanitizer.txt
tar -C /tmp/d -czf $OUT/san.tgz san
tar -C /tmp/d -czf $OUT/ncu_text.tgz --exclude='*.ncu-rep' ncu
tar -C /tmp/d -czf $OUT/ncu_reps.tgz --exclude='*.csv' --exclude='*.txt' ncu
cat $OUT/sanitizer.txt
