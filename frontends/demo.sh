#!/bin/bash
# Runs kiln on every bundled graph: `check`, then `eval` on a scaled-down copy.
#   frontends/demo.sh BUILD_DIR
# Exits non-zero if any command fails.
set -u
if [ $# -ne 1 ]; then
  echo "usage: frontends/demo.sh BUILD_DIR" >&2
  exit 2
fi
kiln="$1/kiln"
graphs="$(dirname "$(dirname "$0")")/bench/graphs"
status=0
for graph in "$graphs"/*.textproto; do
  echo "=== $(basename "$graph" .textproto)"
  "$kiln" check "$graph" || status=1
  "$kiln" eval --scale-down "$graph" || status=1
  echo
done
exit $status
