#!/bin/bash
# Calls after the first (s22): the sweep goes on where call 1 left it. On a fresh machine its state
# comes from .gpu/state/<card>.json, the previous call's sweep.json copied here.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
# The first argument caps the call (seconds), for when less device time is left than a full call.
cap=${1:-560}
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
gate=64; [ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -lt 100000 ] && gate=40
only=".*"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then card=h200; sweep=/tmp/ds/sweep
else card=other; sweep=/tmp/ds/sweep-other; only="^($(paste -sd'|' .gpu/state/changed.txt))$"; fi
mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json 2>/dev/null \
  || { [ $card = h200 ] && cp .gpu/state/sweep.json $sweep/; }
echo "start with $(grep -c '"name"' $sweep/sweep.json 2>/dev/null) cases in $sweep" > $OUT/sweep.log
left=$(( cap - ($(date +%s) - start) ))
( while sleep 20; do cp $sweep/sweep.json $OUT/ 2>/dev/null; done ) &
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --filter "$only" --skip-done --warm-gpu-gb $gate --budget-s $left >> $OUT/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $OUT/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $OUT/sweep.log
