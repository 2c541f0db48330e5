#include "codegen/kernel_signature.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/device_library.h"

namespace kiln {

std::string GeneratedKernel::Source() const { return absl::StrCat(DeviceLibrarySource(), "\n", body); }

KernelSignature::KernelSignature(const Graph& graph, const Kernel& kernel) : graph_(graph), kernel_(kernel) {}

std::string KernelSignature::ParameterList() const {
  std::string out;
  for (size_t i = 0; i < kernel_.inputs.size(); ++i) {
    absl::StrAppend(&out, i > 0 ? ", " : "", "const ", StorageType(graph_.node(kernel_.inputs[i]).dtype),
                    "* __restrict__ in", i);
  }
  for (size_t i = 0; i < kernel_.outputs.size(); ++i) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", StorageType(graph_.node(kernel_.outputs[i]).dtype),
                    "* __restrict__ out", i);
  }
  return out;
}

namespace {
std::string IndexedName(const std::vector<NodeId>& ids, NodeId id, absl::string_view prefix) {
  auto it = std::find(ids.begin(), ids.end(), id);
  if (it == ids.end()) return "";
  return absl::StrCat(prefix, it - ids.begin());
}
}  // namespace

std::string KernelSignature::InputName(NodeId id) const { return IndexedName(kernel_.inputs, id, "in"); }
std::string KernelSignature::OutputName(NodeId id) const { return IndexedName(kernel_.outputs, id, "out"); }

void KernelSignature::Fill(GeneratedKernel& generated) const {
  generated.name = kernel_.name;
  generated.params = kernel_.inputs;
  generated.params.insert(generated.params.end(), kernel_.outputs.begin(), kernel_.outputs.end());
  generated.num_inputs = static_cast<int>(kernel_.inputs.size());
}

}  // namespace kiln
