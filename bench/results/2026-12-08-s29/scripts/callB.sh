#!/bin/bash
# Call B (s29 plan): the sweep on the build call A chose (bundled as .gpu/bin/kiln), then profiles
# of its misses, for the time given (the first argument, seconds). The sweep goes on from
# .gpu/state/<card>.json: copy call A's sweep.json there, or make it with scripts/seed.py.
o=/tmp/oB; mkdir -p $o
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
.gpu/run kiln --version > $o/kiln_version.txt 2>&1
bash bench/results/2026-12-08-s29/scripts/sweep_for.sh $(( ${1:-560} - 5 )) $o callB.tgz
