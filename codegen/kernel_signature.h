// The parameter list of a generated kernel, with generated names only:
// `const T* in<k>` for each input, `T* out<k>` for each output, then
// `const __grid_constant__ KilnTensorMap map<k>` for each TMA descriptor an
// emitter asks for. An input or output touched only through descriptors has
// no pointer parameter.
//
//   KernelSignature sig(graph, kernel);
//   std::string a = sig.AddTensorMap(x, spec, /*written=*/false);  // "map0"
//   sig.OmitPointer(x);
//   sig.ParameterList()  // "float* __restrict__ out0, const __grid_constant__ KilnTensorMap map0"
//   sig.InputName(y)     // "in0"
#ifndef KILN_CODEGEN_KERNEL_SIGNATURE_H_
#define KILN_CODEGEN_KERNEL_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "codegen/generated_kernel.h"
#include "fusion/plan.h"

namespace kiln {

class KernelSignature {
 public:
  KernelSignature(const Graph& graph, const Kernel& kernel);

  // A descriptor parameter over `node`'s memory; returns its name.
  std::string AddTensorMap(NodeId node, const TensorMapSpec& spec, bool written);
  // `node` (an input or output of the kernel) gets no pointer parameter.
  void OmitPointer(NodeId node);

  std::string ParameterList() const;
  std::string InputName(NodeId id) const;   // empty when `id` is not an input
  std::string OutputName(NodeId id) const;  // empty when `id` is not an output
  void Fill(GeneratedKernel& generated) const;

 private:
  const Graph& graph_;
  const Kernel& kernel_;
  absl::flat_hash_set<NodeId> omitted_;
  std::vector<KernelParam> maps_;
};

}  // namespace kiln

#endif  // KILN_CODEGEN_KERNEL_SIGNATURE_H_
