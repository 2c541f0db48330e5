#!/bin/bash
# Calls 2 and after (s24): the whole sweep on this card at this commit, beside s23's entries of the
# 244 cases whose plans no commit since has changed (s23's H100 sweep.json without the 72 cases of
# ../../2026-12-07-h100-s23/scripts/changed_plans.txt, as .gpu/state/h100.json). --skip-done times
# the other 608. A warm machine goes on from /tmp/ds; a fresh one from .gpu/state/h100.json, where
# the previous call's sweep.json is copied before the next call.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
# The first argument caps the call (seconds), for when less device time is left than a full call.
cap=${1:-560}
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
gate=64; [ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -lt 100000 ] && gate=40
sweep=/tmp/ds/sweep
mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/h100.json $sweep/sweep.json
echo "start with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" > $OUT/sweep.log
left=$(( cap - ($(date +%s) - start) ))
( while sleep 20; do cp $sweep/sweep.json $OUT/ 2>/dev/null; done ) &
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $left >> $OUT/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $OUT/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $OUT/sweep.log
