cd .gpu_proto
for f in sm32_2buf sm32_2buf_relaxed sm32_3buf sm32_3buf_relaxed sm16_2buf sm16_2buf_relaxed sm16_3buf sm16_3buf_relaxed ln16_2buf ln16_3buf ln16_3buf_relaxed; do ./$f; done 2>&1 | tee $OUT/proto2.txt
timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:'k_d1_2$' -c 1 ./sm32_2buf > $OUT/ncu_pipe.txt 2>&1
timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:'k_d1_2_orig$' -c 1 ./sm32_2buf > $OUT/ncu_orig.txt 2>&1
