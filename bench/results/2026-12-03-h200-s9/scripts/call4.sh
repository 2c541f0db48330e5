#!/bin/bash
# Call 4 (s9): FFMA slices 16 deep (new candidates) in the f32 bench, peers and kiln taking turns
# three times; the bias+GeLU and ReLU bf16 8192^3 products in five turns against cuBLASLt/cuBLAS;
# then the GPU tests of every candidate config and of split K.
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
M=bench/graphs/matmul
mkdir -p /tmp/d
start=$(date +%s)
timeout 200 python3 bench/matmul_bench.py --kiln ".gpu/run kiln" --out /tmp/d/f32 --skip-compile --no-check --rounds 3 \
  --graphs $M/matmul_relu_4096x4096x4096_f32.textproto $M/matmul_relu_512x512x32768_f32.textproto > /tmp/d/f32.log 2>&1
echo "f32 bench rc=$? $(( $(date +%s) - start ))s" >> /tmp/d/f32.log
timeout 200 python3 bench/matmul_bench.py --kiln ".gpu/run kiln" --out /tmp/d/big --skip-compile --no-check --rounds 5 \
  --graphs $M/matmul_bias_gelu_8192x8192x8192_bf16.textproto $M/matmul_relu_8192x8192x8192_bf16.textproto > /tmp/d/big.log 2>&1
echo "big bench rc=$? $(( $(date +%s) - start ))s" >> /tmp/d/big.log
cp /tmp/d/f32/matmul.json $OUT/f32.json; cp /tmp/d/big/matmul.json $OUT/big.json
cat /tmp/d/f32.log /tmp/d/big.log > $OUT/bench.log
[ -n "$TESTS" ] && timeout 240 .gpu/run runtime_test --gtest_filter='MatmulGpuTest.EveryCandidate*:MatmulGpuTest.SplitK*' > $OUT/matmul_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/matmul_test.log
grep -A30 "^# kiln" $OUT/bench.log; grep -E "OK|FAIL|rc=" $OUT/matmul_test.log
python3 -c "
import json
for f in ['$OUT/f32.json','$OUT/big.json']:
  for r in json.load(open(f))['rows']:
    print(r['graph'], r['kiln'].get('rounds_us'), {k:v.get('rounds_us') for k,v in r['peers'].items()})
    print('\n'.join(r['kiln_run']['tuning'][-4:]))
"
