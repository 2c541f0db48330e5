#!/bin/bash
# A tour of kiln on every bundled graph (bench/graphs/*.textproto):
#   kiln check            the file loads and verifies
#   kiln eval             the CPU reference interpreter, on a scaled-down copy
#   kiln plan             fused against unfused: kernels and HBM bytes
#                         (with --explain and a dump folder on one softmax graph)
#   kiln emit             the CUDA source; compiled with
#                         `nvcc -gencode=arch=compute_90a,code=sm_90a -c` when nvcc is on PATH
#   kiln run              only where nvidia-smi finds a GPU (the reference check
#                         of the large matmuls takes the CPU seconds to minutes)
#
#   frontends/demo.sh BUILD_DIR
#
# Any failing step makes the exit status non-zero.
set -u
if [ $# -ne 1 ]; then
  echo "usage: frontends/demo.sh BUILD_DIR" >&2
  exit 2
fi
kiln="$(cd "$1" && pwd)/kiln"
cd "$(dirname "$0")/.."
if [ ! -x "$kiln" ]; then
  echo "demo: $kiln not found; build it first (make build)" >&2
  exit 2
fi
explain_graph=softmax_naive_512x131072_f32  # a row too long for one block: the split strategy
work="$(mktemp -d -t kiln-demo.XXXXXX)"
trap 'rm -rf "$work"' EXIT
nvcc="$(command -v nvcc || true)"
gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi
failed=()
steps=0

# step ARGS...: prints and runs `kiln ARGS...`, counting a failure.
step() {
  echo "\$ kiln $*"
  steps=$((steps + 1))
  "$kiln" "$@" || failed+=("kiln $*")
  echo
}

# show_dump DIR: what a dump folder holds, and the head of one kernel's file.
show_dump() {
  local dir=$1
  echo "\$ find $dir -type f | sort"
  (cd "$dir" && find . -type f | sort | sed 's|^\./|  |')
  local kernel
  kernel="$(find "$dir/kernels" -name '*.cu' | sort | head -n 1)"
  echo "\$ sed -n 1,9p $kernel"
  sed -n 1,9p "$kernel"
  echo
}

# emit GRAPH NAME: writes the fused plan's CUDA source and compiles it with nvcc.
emit() {
  local graph=$1 name=$2
  local cu="$work/$name.cu" err="$work/$name.err"
  echo "\$ kiln emit $graph > $cu"
  steps=$((steps + 1))
  if "$kiln" emit "$graph" >"$cu" 2>"$err"; then
    echo "$(grep -c '__global__' "$cu") kernel(s), $(wc -l <"$cu") lines of CUDA"
    if [ -z "$nvcc" ]; then
      echo "nvcc is not on PATH: compile skipped (export PATH=/usr/local/cuda/bin:\$PATH)"
    else
      echo "\$ nvcc -gencode=arch=compute_90a,code=sm_90a -c $cu"
      if "$nvcc" -gencode=arch=compute_90a,code=sm_90a -c "$cu" -o "$work/$name.o"; then
        echo "compiled for sm_90a"
      else
        failed+=("nvcc -gencode=arch=compute_90a,code=sm_90a -c (kiln emit $graph)")
      fi
    fi
  else
    cat "$err"
    failed+=("kiln emit $graph")
  fi
  echo
}

if [ -z "$nvcc" ]; then echo "demo: nvcc not on PATH, generated CUDA will not be compiled"; fi
if [ $gpu -eq 0 ]; then echo "demo: no GPU (nvidia-smi finds none), so no \`kiln run\`"; fi
echo
step --version
for graph in bench/graphs/*.textproto; do
  name="$(basename "$graph" .textproto)"
  echo "=================== $name"
  step check "$graph"
  step eval --scale-down "$graph"
  if [ "$name" = "$explain_graph" ]; then
    step plan --explain --dump "$work/dump" "$graph"
    show_dump "$work/dump"
  else
    step plan "$graph"
  fi
  emit "$graph" "$name"
  if [ $gpu -eq 1 ]; then step run --iters 10 "$graph"; fi
done

if [ ${#failed[@]} -eq 0 ]; then
  echo "demo: all $steps steps succeeded"
  exit 0
fi
echo "demo: ${#failed[@]} of $steps steps failed:"
printf '  %s\n' "${failed[@]}"
exit 1
