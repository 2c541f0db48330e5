#include "frontends/cli/save_io.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "graph/atomic_file.h"
#include "graph/json.h"
#include "graph/tensor_bytes.h"

namespace kiln {

absl::Status SaveIo(const std::string& dir, const Graph& graph, const std::vector<HostTensor>& inputs,
                    const std::vector<HostTensor>& outputs) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::FailedPreconditionError(absl::StrCat("cannot create ", dir, ": ", error.message()));
  std::vector<std::string> entries;
  // Files are named by role and position, never by node name: a name may
  // hold '/' or "..", and nothing outside DIR may be written.
  auto save = [&](NodeId id, const HostTensor& tensor, absl::string_view role, size_t index) -> absl::Status {
    const Node& node = graph.node(id);
    const std::string file = absl::StrCat(role, index, ".bin");
    const std::string path = absl::StrCat(dir, "/", file);
    if (absl::Status s = WriteFileAtomically(path, EncodeTensor(tensor)); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
    }
    std::vector<std::string> shape;
    for (int64_t d : node.shape) shape.push_back(JsonInt(d));
    entries.push_back(JsonObject({{"name", JsonString(node.name)},
                                  {"file", JsonString(file)},
                                  {"dtype", JsonString(DTypeName(node.dtype))},
                                  {"shape", JsonArray(shape)},
                                  {"role", JsonString(role)}}));
    return absl::OkStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = save(graph.inputs()[i], inputs[i], "input", i); !s.ok()) return s;
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (absl::Status s = save(graph.outputs()[j], outputs[j], "output", j); !s.ok()) return s;
  }
  const std::string manifest = absl::StrCat(dir, "/io.json");
  if (absl::Status s = WriteFileAtomically(manifest, JsonObjectLines({{"tensors", JsonArrayLines(entries, 2)}}, 0) + "\n");
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(manifest, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace kiln
