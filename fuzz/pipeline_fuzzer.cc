// libFuzzer target: text or binary graph bytes through load -> verify ->
// plan -> reports -> code generation (properties in plan_and_emit.h).
#include <cstddef>
#include <cstdint>

#include "frontends/graph_file.h"
#include "fuzz/plan_and_emit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kiln::Graph> graph = kiln::ParseGraphText(bytes);
  if (!graph.ok()) graph = kiln::ParseGraphBinary(bytes);
  if (graph.ok()) FuzzPlanAndEmit(*graph);
  return 0;
}
