#!/bin/bash
# Calls 2 and after (s24): the whole sweep on this card at this commit, beside the entries of the
# cases whose kernels no commit since has changed; --skip-done times the others.
# - On an H200: s15's H200 entries of the 536 cases outside the 316 that changed since s15
#   (.gpu/state/sweep.json, as in s22; none of them has a row split over a cluster and looped, the
#   only kernels s23 and s24 changed), so the 316 are timed.
# - On an H100: s23's H100 entries of the 244 of those 316 whose plans s23 and s24 left alone (s23's
#   sweep.json without ../../2026-12-07-h100-s23/scripts/changed_plans.txt, as
#   .gpu/state/h100.json), so 608 are timed.
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
