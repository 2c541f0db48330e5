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
# Racecheck cannot check kernels of thread-block clusters: on each of the
# seven cluster row kernels tried (segments in registers or in shared memory;
# H200, CUDA 13.0) it stops with "Internal Sanitizer Error: The Sanitizer
# failed to handle a hardware exception", while memcheck and synccheck pass
# the same launches and their results match the reference. Racecheck of a
# suite that runs cluster kernels (RowGpuTest, the differential suite) fails
# for that reason.
# KILN_SANITIZE_TIMEOUT_S bounds each tool's run of each suite;
# KILN_SANITIZE_TOOLS (default "memcheck racecheck synccheck") picks the tools.
#
# The suite "ffma" (not in the default set: KILN_SANITIZE_SUITES=ffma) checks
# the exact-f32 matmul kernels through `kiln run` on a small product
# (64x128x1024), one run per tile of KILN_SANITIZE_FFMA_TILES, each also split
# in two along K. The tools check only the first two launches of the matmul
# kernel: racecheck of every launch of these shared-memory-bound kernels (kiln
# run times hundreds) does not finish in minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
logs=${2:-$build/compute-sanitizer}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
export KILN_DIFFERENTIAL_GRAPHS=${KILN_DIFFERENTIAL_GRAPHS:-300}
export KILN_SOAK_RUNS=${KILN_SOAK_RUNS:-4000}
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found (set COMPUTE_SANITIZER)"; exit 2; }
for binary in tests/runtime_test tests/gpu_test kiln; do
  [ -x "$build/$binary" ] || { echo "$build/$binary is not built"; exit 2; }
done
mkdir -p "$logs"
ffma_runs=()
if [[ " ${KILN_SANITIZE_SUITES:-} " == *" ffma "* ]]; then
  ffma_graph="$logs/matmul_relu_64x128x1024_f32.textproto"
  "$build/kiln" workload matmul_relu f32 64x128x1024 --out="$ffma_graph" >/dev/null || exit 2
  for tile in ${KILN_SANITIZE_FFMA_TILES:-128x128x8:2:8 128x128x8:3:8 128x128x16:3:8 256x128x16:4:8}; do
    for split in "" ":split-k=2"; do
      ffma_runs+=("--kernel-name kns=f0_matmul --launch-count 2 $build/kiln run $ffma_graph --autotune=off --iters=1 --matmul-tile=$tile$split")
    done
  done
fi
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
# sanitize TOOL NAME ARGS...: one run of the tool, its log in $logs/TOOL-NAME.log, one summary line.
sanitize() {
  local tool=$1 name=$2
  shift 2
  local log="$logs/$tool-$name.log" start
  start=$(date +%s)
  # shellcheck disable=SC2086
  timeout "${KILN_SANITIZE_TIMEOUT_S:-0}" "$sanitizer" --tool "$tool" ${options[$tool]} --error-exitcode 99 "$@" >"$log" 2>&1
  local rc=$?
  local summary tests checked
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  tests=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$log" | tr '\n' ' ')
  checked=$(grep -o "check: .*" "$log" | head -1)
  echo "$tool $name: exit $rc, $(( $(date +%s) - start ))s; ${summary:-no summary}; $tests$checked"
  [ $rc -eq 0 ] || status=1
}
for tool in ${KILN_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
  for suite in ${KILN_SANITIZE_SUITES:-runtime gpu}; do
    if [ "$suite" = ffma ]; then
      for run in "${ffma_runs[@]}"; do
        tile=${run##*--matmul-tile=}
        # shellcheck disable=SC2086
        sanitize "$tool" "ffma-${tile//:/_}" $run
      done
    else
      # shellcheck disable=SC2086
      sanitize "$tool" "$suite" ${suites[$suite]}
    fi
  done
done
[ -f "$logs/memcheck-gpu.log" ] && grep -h "^differential:\|^  families:\|^  inputs by dtype:\|^soak:" "$logs"/memcheck-gpu.log
echo "logs: $logs"
exit $status
