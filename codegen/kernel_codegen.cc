#include "codegen/kernel_codegen.h"

#include <algorithm>
#include <array>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/attention_emitter.h"
#include "codegen/axis_reduction_emitter.h"
#include "codegen/device_library.h"
#include "codegen/kernel_signature.h"
#include "codegen/layout_emitters.h"
#include "codegen/matmul_emitter.h"
#include "codegen/pointwise_emitter.h"
#include "codegen/row_emitter.h"
#include "codegen/transpose_emitter.h"
#include "fusion/op_class.h"
#include "fusion/plan_report.h"

namespace kiln {
namespace {

// Who reads what the plan's kernels write, for the parameter comments.
class Roles {
 public:
  Roles(const Graph& graph, const Plan& plan) : graph_(graph), plan_(plan), readers_(graph.size()) {
    for (NodeId o : graph.outputs()) is_output_.insert(ViewRoot(graph, o));
    for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
      for (NodeId in : plan.kernels[k].inputs) {
        std::vector<int>& readers = readers_[ViewRoot(graph, in)];
        if (std::find(readers.begin(), readers.end(), k) == readers.end()) readers.push_back(k);
      }
    }
  }

  std::string Input(NodeId id) const {
    const NodeId root = ViewRoot(graph_, id);
    if (root != id) return absl::StrCat("a reshape of ", graph_.node(root).name);
    if (plan_.kernel_of[id] >= 0) return absl::StrCat("written by ", plan_.kernels[plan_.kernel_of[id]].name);
    return graph_.node(id).op == OpKind::kInput ? "graph input" : std::string(OpName(graph_.node(id).op));
  }

  std::string Output(NodeId id) const {
    std::vector<std::string> roles;
    if (is_output_.contains(id)) roles.push_back("graph output");
    std::vector<std::string> readers;
    for (int k : readers_[id]) readers.push_back(plan_.kernels[k].name);
    if (!readers.empty()) roles.push_back(absl::StrCat("read by ", absl::StrJoin(readers, ", ")));
    return absl::StrJoin(roles, "; ");
  }

 private:
  const Graph& graph_;
  const Plan& plan_;
  absl::flat_hash_set<NodeId> is_output_;
  std::vector<std::vector<int>> readers_;  // per tensor (a view's root): kernels reading it
};

std::string Comment(const Graph& graph, const Plan& plan, const Roles& roles, size_t k,
                    const GeneratedKernel& generated) {
  const Kernel& kernel = plan.kernels[k];
  const LaunchShape& launch = generated.launch;
  std::string out = absl::StrCat("// ---- kernel ", kernel.name, ": ", KernelKindName(kernel.kind), ", ",
                                 kernel.Strategy(), "\n// launch: grid ", launch.grid, ", block ", launch.block,
                                 ", cluster ", launch.cluster, ", dynamic shared memory ",
                                 GroupedNumber(launch.shared_bytes), " bytes\n// parameters:\n");
  const KernelSignature signature(graph, kernel);
  std::vector<std::array<std::string, 4>> rows;
  int maps = 0;  // descriptor slots follow the pointers, named map0, map1, ...
  for (const KernelParam& param : generated.params) {
    const Node& node = graph.node(param.node);
    const std::string role = param.written ? roles.Output(param.node) : roles.Input(param.node);
    std::string name, carries;
    if (param.kind == KernelParam::Kind::kTensorMap) {
      name = absl::StrCat("map", maps++);
      carries = absl::StrCat("TMA descriptor of its memory, ", param.written ? "written" : "read",
                             role.empty() ? "" : "; ", role);
    } else {
      name = param.written ? signature.OutputName(param.node) : signature.InputName(param.node);
      carries = role;
    }
    rows.push_back({name, node.name, absl::StrCat(DTypeName(node.dtype), DimsString(node.shape)), carries});
  }
  std::array<size_t, 3> width{};
  for (const auto& row : rows) {
    for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = absl::StrFormat("//   %-*s  %-*s  %-*s  %s", width[0], row[0], width[1], row[1], width[2],
                                       row[2], row[3]);
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace

absl::StatusOr<GeneratedKernel> GenerateKernel(const Graph& graph, const Kernel& kernel,
                                               const DeviceLimits& limits) {
  switch (kernel.kind) {
    case KernelKind::kPointwise: return EmitPointwiseKernel(graph, kernel, limits);
    case KernelKind::kRowReduction: return EmitRowKernel(graph, kernel, limits);
    case KernelKind::kReduction: return EmitAxisReduction(graph, kernel, limits);
    case KernelKind::kTranspose: return EmitTranspose(graph, kernel);
    case KernelKind::kSlice: return EmitSlice(graph, kernel, limits);
    case KernelKind::kAttention: return EmitAttentionKernel(graph, kernel);
    case KernelKind::kMatmul: return EmitMatmulKernel(graph, kernel, limits);
  }
  return absl::InternalError("unknown kernel kind");
}

absl::StatusOr<std::vector<GeneratedKernel>> GeneratePlan(const Graph& graph, const Plan& plan,
                                                          const DeviceLimits& limits) {
  std::vector<GeneratedKernel> kernels;
  for (const Kernel& kernel : plan.kernels) {
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, limits);
    if (!generated.ok()) return generated.status();
    kernels.push_back(*std::move(generated));
  }
  return kernels;
}

std::vector<std::string> KernelComments(const Graph& graph, const Plan& plan,
                                        const std::vector<GeneratedKernel>& generated) {
  const Roles roles(graph, plan);
  std::vector<std::string> comments;
  for (size_t k = 0; k < generated.size(); ++k) comments.push_back(Comment(graph, plan, roles, k, generated[k]));
  return comments;
}

absl::StatusOr<std::string> EmitTranslationUnit(const Graph& graph, const Plan& plan,
                                                const DeviceLimits& limits) {
  absl::StatusOr<std::vector<GeneratedKernel>> kernels = GeneratePlan(graph, plan, limits);
  if (!kernels.ok()) return kernels.status();
  std::string out = absl::StrCat("// Generated by kiln: ", plan.kernels.size(), " kernel",
                                 plan.kernels.size() == 1 ? "" : "s", " (", plan.fused ? "fused" : "unfused",
                                 " plan).\n", DeviceLibrarySource());
  const std::vector<std::string> comments = KernelComments(graph, plan, *kernels);
  for (size_t k = 0; k < kernels->size(); ++k) absl::StrAppend(&out, "\n", comments[k], (*kernels)[k].body);
  return out;
}

}  // namespace kiln
