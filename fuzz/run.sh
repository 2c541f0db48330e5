#!/bin/bash
# Runs every fuzz target built in BUILD for SECONDS each, from the committed
# seed corpus; new inputs go to BUILD/fuzz-corpus/<target>, crashes to
# BUILD/fuzz-artifacts/. Exits non-zero if any target finds a problem.
#
#   bash fuzz/run.sh build-fuzz 60
#
# A target reads fuzz/corpus/<name> (its name without _fuzzer) when that
# folder exists, and every seed folder otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD SECONDS}
seconds=${2:?usage: fuzz/run.sh BUILD SECONDS}
mkdir -p "$build/fuzz-artifacts"
failed=()
for source in fuzz/*_fuzzer.cc; do
  target=$(basename "$source" .cc)
  name=${target%_fuzzer}
  if [ -d "fuzz/corpus/$name" ]; then seeds=("fuzz/corpus/$name"); else seeds=(fuzz/corpus/*/); fi
  work="$build/fuzz-corpus/$name"
  mkdir -p "$work"
  log="$build/fuzz-artifacts/$name.log"
  echo "fuzz: $target for ${seconds}s from ${seeds[*]}"
  # -timeout catches hangs, -rss_limit_mb runaway memory; the first corpus
  # folder is the one libFuzzer writes to, so the committed seeds stay as they are.
  "$build/fuzz/$target" -max_total_time="$seconds" -dict=fuzz/graph.dict -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name-" \
    "$work" "${seeds[@]}" >"$log" 2>&1
  status=$?
  grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units' "$log" | tail -2 | sed 's/^/  /'
  if [ $status -ne 0 ]; then
    failed+=("$target")
    echo "fuzz: $target FAILED (exit $status); the end of $log:"
    tail -40 "$log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: problems found by ${failed[*]}; inputs are in $build/fuzz-artifacts/"
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a problem"
