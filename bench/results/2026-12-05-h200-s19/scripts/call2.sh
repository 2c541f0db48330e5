#!/bin/bash
# Call 2: is it faster? Every changed case timed main/pairs/main/pairs, each
# build with its own kernel cache (the first run of each compiles and tunes).
# Writes as it goes, so a cut-off call keeps what it timed.
start=$(date +%s)
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(cat .gpu/cases.txt); do
  echo "$f main $(t main $f) pairs $(t pairs $f) main $(t main $f) pairs $(t pairs $f)" >> $OUT/timing.txt
  [ $(( $(date +%s) - start )) -gt 570 ] && break
done
echo "done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
