#include "codegen/kernel_signature.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cuda_types.h"
#include "codegen/device_library.h"
#include "graph/check.h"

namespace kiln {

std::string GeneratedKernel::Source() const { return absl::StrCat(DeviceLibrarySource(), "\n", body); }

std::string LaunchBounds(int threads, int min_blocks_per_sm) {
  return min_blocks_per_sm > 1 ? absl::StrCat("__launch_bounds__(", threads, ", ", min_blocks_per_sm, ")")
                               : absl::StrCat("__launch_bounds__(", threads, ")");
}

GeneratedKernel GeneratedKernel::WithMinBlocks(int blocks) const {
  KILN_CHECK(min_blocks_per_sm > 0);
  const std::string bound = LaunchBounds(static_cast<int>(launch.block), min_blocks_per_sm);
  KILN_CHECK(body.compare(bound_at, bound.size(), bound) == 0);
  GeneratedKernel k = *this;
  k.min_blocks_per_sm = std::max(blocks, 1);
  k.body.replace(bound_at, bound.size(), LaunchBounds(static_cast<int>(launch.block), k.min_blocks_per_sm));
  return k;
}

KernelSignature::KernelSignature(const Graph& graph, const Kernel& kernel) : graph_(graph), kernel_(kernel) {}

std::string KernelSignature::AddTensorMap(NodeId node, const TensorMapSpec& spec, bool written) {
  maps_.push_back({.kind = KernelParam::Kind::kTensorMap, .node = node, .written = written, .map = spec});
  return absl::StrCat("map", maps_.size() - 1);
}

void KernelSignature::OmitPointer(NodeId node) { omitted_.insert(node); }

std::string KernelSignature::ParameterList() const {
  std::vector<std::string> params;
  for (size_t i = 0; i < kernel_.inputs.size(); ++i) {
    if (omitted_.contains(kernel_.inputs[i])) continue;
    params.push_back(
        absl::StrCat("const ", StorageType(graph_.node(kernel_.inputs[i]).dtype), "* __restrict__ in", i));
  }
  for (size_t i = 0; i < kernel_.outputs.size(); ++i) {
    if (omitted_.contains(kernel_.outputs[i])) continue;
    params.push_back(absl::StrCat(StorageType(graph_.node(kernel_.outputs[i]).dtype), "* __restrict__ out", i));
  }
  for (size_t i = 0; i < maps_.size(); ++i) {
    params.push_back(absl::StrCat("const __grid_constant__ KilnTensorMap map", i));
  }
  return absl::StrJoin(params, ", ");
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
  generated.params.clear();
  for (NodeId input : kernel_.inputs) {
    if (!omitted_.contains(input)) generated.params.push_back({.node = input});
  }
  for (NodeId output : kernel_.outputs) {
    if (!omitted_.contains(output)) generated.params.push_back({.node = output, .written = true});
  }
  generated.params.insert(generated.params.end(), maps_.begin(), maps_.end());
}

}  // namespace kiln
