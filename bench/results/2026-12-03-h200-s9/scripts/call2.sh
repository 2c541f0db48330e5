#!/bin/bash
# Call 2 (s9): graph 654 of the differential suite (layout+reductions, f16 transpose whose output
# rows straddle vectors) run fused and unfused with its outputs saved; the full matmul bench
# against cuBLAS; racecheck of the split-K kernels of every tier through `kiln run`.
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
mkdir -p /tmp/d/g654 /tmp/d/matmul /tmp/d/race
G=.gpu/graphs
{
for mode in "" --unfused; do
  for rep in 1 2; do
    echo "== g654 $mode rep $rep"
    timeout 60 .gpu/run kiln run $G/g654.pb --seed=1654 --iters=1 $mode --save-outputs=/tmp/d/g654/out${mode}_$rep 2>&1 | tail -14
  done
done
echo "== t654 (transpose only)"
timeout 60 .gpu/run kiln run $G/t654.textproto --seed=1654 --iters=1 --save-outputs=/tmp/d/g654/t654 2>&1 | tail -8
} > $OUT/g654.log 2>&1
tar -C /tmp/d -cf $OUT/g654.tar g654
start=$(date +%s)
timeout 380 python3 bench/matmul_bench.py --kiln ".gpu/run kiln" --out /tmp/d/matmul --skip-compile --no-check > /tmp/d/matmul/bench.log 2>&1
echo "bench rc=$? $(( $(date +%s) - start ))s" >> /tmp/d/matmul/bench.log
tar -C /tmp/d -cf $OUT/matmul.tar matmul
for f in $G/mm_*.textproto; do
  name=$(basename $f .textproto)
  timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 99 \
    .gpu/run kiln run $f --autotune=off --iters=1 > /tmp/d/race/$name.log 2>&1 &
done
wait
for f in /tmp/d/race/*.log; do echo "$(basename $f): $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $f | tail -1) $(grep -c -i 'max error\|passed\|matches' $f) check lines"; done > $OUT/race.txt
tar -C /tmp/d -cf $OUT/race.tar race
cat $OUT/g654.log | head -60; cat $OUT/race.txt; tail -30 /tmp/d/matmul/bench.log
