#!/bin/bash
# For every row sweep graph whose kernel asks for several blocks per SM, the ptxas spill of its kernel.
cd /work/main
for g in /tmp/g/*.textproto; do
  n=$(basename $g .textproto)
  case $n in pointwise*|transpose*|*axis*) continue;; esac
  d=/tmp/sp/$n; rm -rf $d
  ./build/kiln plan $g --dump=$d >/dev/null 2>&1 || continue
  for f in $d/kernels/f*.cu; do
    grep -qE "__launch_bounds__\([0-9]+, [2-9]\)" $f || continue
    r=$(nvcc -cubin -arch=sm_90a -std=c++17 -Xcompiler -w -Xptxas -v $f -o /dev/null 2>&1 | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ')
    echo "$n $(grep -oE '__launch_bounds__\([0-9]+, [0-9]\)' $f) $r"
  done
done
