#!/bin/bash
# Runs the GPU suites under compute-sanitizer's memcheck (with leak checks),
# racecheck and synccheck, and prints one summary line per tool and suite.
# Exits non-zero when a tool reports an error or a suite fails.
#
#   bash tests/gpu/run_compute_sanitizer.sh [BUILD] [LOG_DIR]
#
# Suites: every GPU test of runtime_test (filter *Gpu*) and gpu_test (the
# differential suite and the soak test). Kernels run 10-100x slower under the
# tools, so the differential suite runs KILN_DIFFERENTIAL_GRAPHS graphs
# (default 300 here) and the soak test KILN_SOAK_RUNS runs (default 4000);
# set them to run the full suites. KILN_SANITIZE_SUITES (default "runtime gpu")
# and KILN_SANITIZE_FILTER (runtime_test's gtest filter, default *Gpu*) pick a
# smaller representative set, e.g. KILN_SANITIZE_SUITES=runtime
# KILN_SANITIZE_FILTER='MatmulGpuTest.Transposed*' for the matmul kernels.
# The default filter leaves out the tests that provoke CUDA errors on purpose
# (the tools count those as errors) and the NVTX test (the tools take NVTX's
# injection point, so the test's own collector sees no ranges).
# KILN_SANITIZE_TIMEOUT_S bounds each tool's run of each suite;
# KILN_SANITIZE_TOOLS (default "memcheck racecheck synccheck") picks the tools.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
logs=${2:-$build/compute-sanitizer}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
export KILN_DIFFERENTIAL_GRAPHS=${KILN_DIFFERENTIAL_GRAPHS:-300}
export KILN_SOAK_RUNS=${KILN_SOAK_RUNS:-4000}
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found (set COMPUTE_SANITIZER)"; exit 2; }
for binary in runtime_test gpu_test; do
  [ -x "$build/tests/$binary" ] || { echo "$build/tests/$binary is not built"; exit 2; }
done
mkdir -p "$logs"
declare -A suites=(
  [runtime]="$build/tests/runtime_test --gtest_filter=${KILN_SANITIZE_FILTER:-*Gpu*:-LoadedKernelGpuTest.LaunchErrorNamesTheKernel:LoadedKernelGpuTest.UnknownFunctionNameIsReported:NvtxRangesGpuTest.*}"
  [gpu]="$build/tests/gpu_test"
)
declare -A options=(
  [memcheck]="--leak-check full"
  [racecheck]="--racecheck-report hazard"
  [synccheck]=""
)
status=0
for tool in ${KILN_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
  for suite in ${KILN_SANITIZE_SUITES:-runtime gpu}; do
    log="$logs/$tool-$suite.log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${KILN_SANITIZE_TIMEOUT_S:-0}" "$sanitizer" --tool "$tool" ${options[$tool]} --error-exitcode 99 ${suites[$suite]} >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    tests=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$log" | tr '\n' ' ')
    echo "$tool $suite: exit $rc, $(( $(date +%s) - start ))s; ${summary:-no summary}; $tests"
    [ $rc -eq 0 ] || status=1
  done
done
[ -f "$logs/memcheck-gpu.log" ] && grep -h "^differential:\|^  families:\|^  inputs by dtype:\|^soak:" "$logs"/memcheck-gpu.log
echo "logs: $logs"
exit $status
