#!/bin/bash
# Calls 3 and after (s25): the whole sweep on this card at this commit, beside the entries of the
# cases whose kernels no commit since has changed; --skip-done times the others.
# - On an H200: s15's H200 entries of the 536 cases outside the 316 that changed since s15
#   (.gpu/state/h200.json); the 25 whose held moments s25 takes in one pass are among the 316.
# - On an H100: the s24 sweep's entries less those 25 (.gpu/state/h100.json, 444), so 408 are timed.
# A warm machine goes on from /tmp/ds; a fresh one from .gpu/state/<card>.json, where the previous
# call's sweep.json is copied before the next call.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
# The first argument caps the call (seconds), for when less device time is left than a full call.
cap=${1:-560}
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
gate=64; [ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -lt 100000 ] && gate=40
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
sweep=/tmp/ds/sweep-$card
mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "start with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" > $OUT/sweep.log
left=$(( cap - ($(date +%s) - start) ))
( while sleep 20; do cp $sweep/sweep.json $OUT/ 2>/dev/null; done ) &
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $left >> $OUT/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $OUT/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $OUT/sweep.log
