#!/bin/bash
# The sweep on this GPU machine for the time given, then profiles of its misses for what is left:
#   bash sweep_for.sh SECONDS OUTDIR TARNAME
# It goes on from /tmp/ds/sweep-<card>, or starts it from .gpu/state/<card>.json (card: h200 or
# h100), with .gpu/bin/kiln. Every 15 s and at the end OUTDIR gets sweep.json (and profiles.json)
# and $OUT/TARNAME gets OUTDIR, so a call cut off keeps what it finished.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
end=$(( $(date +%s) + $1 )); o=$2; tarname=$3
left() { echo $(( end - $(date +%s) )); }
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
gate=64; [ "$card" = h100 ] && gate=40
sweep=/tmp/ds/sweep-$card; mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "$card sweep starts with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" >> $o/log.txt
( while sleep 15; do cp $sweep/sweep.json $sweep/profiles.json $o/ 2>/dev/null; tar czf $OUT/$tarname -C $o .; done ) &
saver=$!
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) + 10 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
    --skip-done --warm-gpu-gb $gate --budget-s $(( $(left) - 10 )) >> $o/sweep.log 2>&1
  echo "sweep rc=$? $(left)s left" >> $o/log.txt
fi
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) - 5 )) python3 bench/sweep/profile_misses.py --kiln ".gpu/run kiln" --sweep $sweep \
    --budget-s $(( $(left) - 40 )) >> $o/profiles.log 2>&1
  echo "profiles rc=$? $(left)s left" >> $o/log.txt
fi
kill $saver
cp $sweep/sweep.json $sweep/phases.json $sweep/profiles.json $sweep/profiles.md $o/ 2>/dev/null
tar czf $OUT/$tarname -C $o .
