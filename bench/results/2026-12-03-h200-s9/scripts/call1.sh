#!/bin/bash
# Call 1 (s9): the 1000-graph differential suite on the final matmul code, beside racecheck and
# synccheck of the matmul kernels (split K, clusters, epilogue warps).
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
start=$(date +%s)
( timeout 500 .gpu/run gpu_test > $OUT/gpu_test.log 2>&1; echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
mkdir -p /tmp/sb/tests; ln -sf $PWD/.gpu/bin/runtime_test /tmp/sb/tests/; ln -sf $PWD/.gpu/bin/gpu_test /tmp/sb/tests/
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export KILN_SANITIZE_SUITES=runtime KILN_SANITIZE_TIMEOUT_S=110
KILN_SANITIZE_FILTER='MatmulGpuTest.SplitKProducts*' KILN_SANITIZE_TOOLS="racecheck synccheck" bash tests/gpu/run_compute_sanitizer.sh /tmp/sb $OUT/san_split 2>&1 | grep -v "^logs" | tee $OUT/sanitizer.txt
KILN_SANITIZE_FILTER='MatmulGpuTest.ClusterProducts*' KILN_SANITIZE_TOOLS="synccheck" bash tests/gpu/run_compute_sanitizer.sh /tmp/sb $OUT/san_cluster 2>&1 | grep -v "^logs" | tee -a $OUT/sanitizer.txt
KILN_SANITIZE_FILTER='MatmulGpuTest.TransposedOperands*' KILN_SANITIZE_TOOLS="synccheck" bash tests/gpu/run_compute_sanitizer.sh /tmp/sb $OUT/san_transposed 2>&1 | grep -v "^logs" | tee -a $OUT/sanitizer.txt
wait
tail -25 $OUT/gpu_test.log
