#!/bin/bash
# Call 7 (s20, same warm H100 as call 6): the rest of both patches' cases timed, a few checked.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
el() { echo $(( $(date +%s) - start )); }
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(grep -v -x -f .gpu/align_key.txt .gpu/align_cases.txt); do
  echo "$f main $(t main $f) align $(t align $f)" >> $OUT/timing_align.txt
  [ $(el) -gt 110 ] && break
done
for f in $(grep -v -x -f .gpu/exp_key.txt .gpu/online_cases.txt); do
  echo "$f main $(t main $f) new $(t new $f)" >> $OUT/timing.txt
  [ $(el) -gt 270 ] && break
done
echo "all done $(el)s" >> $OUT/timing.txt
