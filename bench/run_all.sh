#!/usr/bin/env bash
# Runs every bundled benchmark graph through kiln (fused, then unfused) and through the peers,
# then writes results.json, results.md and results.svg into OUTDIR.
#
#   bench/run_all.sh BUILD_OR_BUNDLE OUTDIR
#
# kiln is run as $KILN when that is set (e.g. KILN=".gpu/run kiln"); otherwise as
# BUILD_OR_BUNDLE/run kiln for a gpu-bundle directory, BUILD_OR_BUNDLE/kiln for a build
# directory, or `kiln` on PATH. Other knobs, all optional:
#   GRAPHS       graph files to run (default: bench/graphs/*.textproto)
#   KILN_ITERS   kiln's timed iterations (default 50)
#   PEER_REPS    timed repetitions per peer (default 50)
#   PYTHON       interpreter for peers.py and report.py (default python3)
#
# A failing step is recorded (its JSON carries the error, its log is kept) and the run goes on.
# The tensors kiln saves for the peers (GBs per graph) are deleted after each graph.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: bench/run_all.sh BUILD_OR_BUNDLE OUTDIR" >&2
  exit 2
fi
bench=$(cd "$(dirname "$0")" && pwd)
tree=$1
out=$2
python=${PYTHON:-python3}
iters=${KILN_ITERS:-50}
reps=${PEER_REPS:-50}

if [ -n "${KILN:-}" ]; then
  kiln_cmd=$KILN
elif [ -x "$tree/run" ]; then
  kiln_cmd="$tree/run kiln"
elif [ -x "$tree/kiln" ]; then
  kiln_cmd="$tree/kiln"
else
  kiln_cmd=kiln
fi
read -r -a kiln <<< "$kiln_cmd"

mkdir -p "$out"
io="$out/io.tmp"
trap 'rm -rf "$io"' EXIT

# record_failure JSON_FILE LOG_FILE EXIT_CODE KEY=VALUE...: adds "error" (the log's last
# non-empty line) and "exit_code" to the JSON the step printed, or, where it printed none (it
# failed before measuring), writes an object of the given fields with them.
record_failure() {
  "$python" - "$@" <<'PY'
import json, pathlib, sys
path, log, code, *fields = sys.argv[1:]
lines = [l for l in pathlib.Path(log).read_text(errors="replace").splitlines() if l.strip()]
try:
    obj = json.loads(pathlib.Path(path).read_text())
except (OSError, ValueError):
    obj = None
if not isinstance(obj, dict):
    obj = dict(f.split("=", 1) for f in fields)
obj.update(error=lines[-1].strip() if lines else f"exited with status {code}", exit_code=int(code))
pathlib.Path(path).write_text(json.dumps(obj, indent=1) + "\n")
PY
}

# run_kiln PLAN NAME DIR ARGS...: one `kiln run`, its JSON in DIR/kiln_PLAN.json.
run_kiln() {
  local plan=$1 name=$2 dir=$3
  shift 3
  if "${kiln[@]}" run "$@" > "$dir/kiln_$plan.json" 2> "$dir/kiln_$plan.log"; then
    echo "  kiln $plan: ok"
  else
    local rc=$?
    record_failure "$dir/kiln_$plan.json" "$dir/kiln_$plan.log" "$rc" graph="$name" plan="$plan"
    echo "  kiln $plan: FAILED ($(tail -n 1 "$dir/kiln_$plan.log"))"
  fi
}

shopt -s nullglob
# Unquoted on purpose: GRAPHS is a glob (or a list of paths) expanded here.
# shellcheck disable=SC2206
graphs=(${GRAPHS:-$bench/graphs/*.textproto})
if [ ${#graphs[@]} -eq 0 ]; then
  echo "run_all: no graph files (GRAPHS=${GRAPHS:-$bench/graphs/*.textproto})" >&2
  exit 1
fi

start=$SECONDS
for graph in "${graphs[@]}"; do
  name=$(basename "$graph" .textproto)
  dtype=${name##*_}
  rest=${name%_*}
  shape=${rest##*_}
  workload=${rest%_*}
  dir="$out/$name"
  mkdir -p "$dir"
  rm -f "$dir"/*.json "$dir"/*.log
  rm -rf "$io"
  mkdir -p "$io"
  echo "== $name ($((SECONDS - start)) s)"

  run_kiln fused "$name" "$dir" "$graph" --iters "$iters" --json --save-io "$io"
  run_kiln unfused "$name" "$dir" "$graph" --unfused --iters "$iters" --json

  if "$python" "$bench/peers.py" --io "$io" --workload "$workload" --shape "$shape" \
      --dtype "$dtype" --out "$dir/peers.json" --reps "$reps" > "$dir/peers.log" 2>&1; then
    echo "  peers: ok"
  else
    rc=$?
    record_failure "$dir/peers.json" "$dir/peers.log" "$rc" schema=kiln-bench-peers/1 \
      workload="$workload" shape="$shape" dtype="$dtype"
    echo "  peers: FAILED (see $dir/peers.log)"
  fi
  rm -rf "$io"

  "$python" "$bench/report.py" "$out" > /dev/null || echo "  report: FAILED"
done
"$python" "$bench/report.py" "$out"
echo "run_all: ${#graphs[@]} graph(s) in $((SECONDS - start)) s"
