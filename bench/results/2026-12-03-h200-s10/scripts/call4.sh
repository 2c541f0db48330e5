#!/bin/bash
# Call 4 (s10): the row GPU tests that run block and cluster reductions, on main at 691c09d.
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache
start=$(date +%s)
timeout 75 .gpu/run runtime_test --gtest_filter='RowGpuTest.FewRows*:RowGpuTest.SweepShapes*:RowGpuTest.UnalignedRowsOfEveryStrategy*:RowGpuTest.UnalignedRowsWithEpilogues*' > $OUT/row_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/row_test.log
grep -E "OK \]|FAILED|PASSED|rc=" $OUT/row_test.log
