#!/bin/bash
# Call 6 (s9): FFMA slices 32 deep for the 256-row tile: the f32 bench (three turns) and the
# candidate and split-K GPU tests; racecheck and memcheck of FFMA split K on small products, one
# per slice depth and stage kind.
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
export PYTHONUNBUFFERED=1
mkdir -p /tmp/d/san
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
M=bench/graphs/matmul
G=.gpu/graphs
start=$(date +%s)
timeout 150 python3 bench/matmul_bench.py --kiln ".gpu/run kiln" --out /tmp/d/f32 --skip-compile --no-check --rounds 3 \
  --graphs $M/matmul_relu_4096x4096x4096_f32.textproto > /tmp/d/f32.log 2>&1
echo "f32 bench rc=$? $(( $(date +%s) - start ))s" >> /tmp/d/f32.log
cp /tmp/d/f32/matmul.json $OUT/f32.json; cp /tmp/d/f32.log $OUT/bench.log
( timeout 200 .gpu/run runtime_test --gtest_filter='MatmulGpuTest.EveryCandidate*:MatmulGpuTest.SplitK*' > $OUT/matmul_test.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/matmul_test.log ) &
for tool in racecheck memcheck; do
  for spec in "mmf32_64x128x1024 128x128x8:3:8:split-k=4" "mmf32_64x128x1024 128x128x16:4:8:split-k=4" \
              "mmf32_64x128x1024 256x128x32:3:8:split-k=4" "mmf32_70x131x1001 128x128x8:2:8:split-k=4"; do
    set -- $spec
    log=/tmp/d/san/$tool-$1-${2//:/_}.log
    extra=""; [ $tool = racecheck ] && extra="--racecheck-report hazard"
    timeout 120 compute-sanitizer --tool $tool $extra --error-exitcode 99 .gpu/run kiln run $G/$1.textproto \
      --autotune=off --iters=1 --matmul-tile=$2 > $log 2>&1
    echo "$tool $1 $2 rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $log | tail -1) $(grep -o 'check: .*' $log)" >> $OUT/sanitizer.txt
  done
done
wait
tar -C /tmp/d -cf $OUT/san.tar san
cat $OUT/sanitizer.txt; grep -E "OK|FAIL|rc=" $OUT/matmul_test.log; grep -A8 "^# kiln" $OUT/bench.log
python3 -c "
import json
r=json.load(open('$OUT/f32.json'))['rows'][0]
print(r['kiln'].get('rounds_us'), {k:v.get('rounds_us') for k,v in r['peers'].items()}); print('\n'.join(r['kiln_run']['tuning']))
"
