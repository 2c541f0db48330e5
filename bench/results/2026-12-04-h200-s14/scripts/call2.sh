#!/bin/bash
# Call 2 (s14): the sweep's cases left after call 1 (--skip-done), on the same build.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
[ -f /tmp/d14/sweep/sweep.json ] || { mkdir -p /tmp/d14; cp -r .gpu/sweep_s14 /tmp/d14/sweep; }
left=$(( 565 - ($(date +%s) - start) ))
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d14/sweep --skip-done \
  --budget-s $left > $OUT/sweep.log 2>&1
tar -C /tmp/d14/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
echo "all done $(( $(date +%s) - start ))s" > $OUT/done.txt
