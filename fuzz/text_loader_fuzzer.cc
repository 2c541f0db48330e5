// libFuzzer target: the text graph loader. Any bytes either fail with an
// InvalidArgument error or give a graph that saves and loads back to itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "frontends/graph_file.h"
#include "fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kiln::Graph> graph = kiln::ParseGraphText(text);
  if (!graph.ok()) {
    FUZZ_EXPECT(graph.status().code() == absl::StatusCode::kInvalidArgument, "bad text is InvalidArgument");
    return 0;
  }
  const std::string saved = kiln::SerializeGraphText(*graph);
  absl::StatusOr<kiln::Graph> reloaded = kiln::ParseGraphText(saved);
  FUZZ_EXPECT(reloaded.ok(), "a graph that loads must load again after saving");
  FUZZ_EXPECT(kiln::SerializeGraphText(*reloaded) == saved, "save(load(save(g))) == save(g)");
  return 0;
}
