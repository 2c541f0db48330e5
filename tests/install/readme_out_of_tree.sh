#!/bin/bash
# The README's C++ example as a user builds it: kiln installed from BUILD_DIR
# into a fresh prefix (`cmake --install`), the README's two C++ blocks saved as
# gelu_example.cc beside its CMakeLists.txt block, configured against the
# prefix with find_package(kiln), built and run. Without a GPU the output must
# be the README's, line for line; with one, the last line reports the run.
#
#   tests/install/readme_out_of_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
readme="$2/README.md"
work=$(mktemp -d -t kiln-out-of-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT

# fenced LANG [MARKER]: the README's code blocks in language LANG ("" for plain
# ones), concatenated; with MARKER, only the first such block after the line
# holding MARKER.
fenced() {
  awk -v want="$1" -v marker="${2-}" '
    marker != "" && index($0, marker) { armed = 1; next }
    /^```/ {
      if (state) { if (state == 2 && marker != "") exit; state = 0; next }
      state = (substr($0, 4) == want && (marker == "" || armed)) ? 2 : 1
      next
    }
    state == 2 { print }' "$readme"
}

mkdir "$work/example"
fenced cpp > "$work/example/gelu_example.cc"
fenced cmake > "$work/example/CMakeLists.txt"
fenced "" "Without a GPU, the example prints" > "$work/expected.txt"
for f in gelu_example.cc CMakeLists.txt; do
  [ -s "$work/example/$f" ] || { echo "README.md has no block for $f" >&2; exit 1; }
done

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$work/example" -B "$work/example/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/example/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/example/build/gelu_example" > "$work/out.txt"

if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  tail -n 1 "$work/out.txt" | grep -q '^ran 1 kernel(s) on ' || { cat "$work/out.txt"; exit 1; }
  head -n -1 "$work/out.txt" > "$work/plan.txt"
  head -n -1 "$work/expected.txt" | diff - "$work/plan.txt"
else
  diff "$work/expected.txt" "$work/out.txt"
fi
echo "the README example builds out of tree against the installed kiln and prints what the README shows"
