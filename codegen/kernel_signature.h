// The parameter list shared by every generated kernel: `const T* in<k>` for
// each input, then `T* out<k>` for each output, with generated names only.
//
//   KernelSignature sig(graph, kernel);
//   sig.ParameterList()     // "const float* __restrict__ in0, float* __restrict__ out0"
//   sig.InputName(x)        // "in0"
#ifndef KILN_CODEGEN_KERNEL_SIGNATURE_H_
#define KILN_CODEGEN_KERNEL_SIGNATURE_H_

#include <string>

#include "codegen/generated_kernel.h"
#include "fusion/plan.h"

namespace kiln {

class KernelSignature {
 public:
  KernelSignature(const Graph& graph, const Kernel& kernel);

  std::string ParameterList() const;
  std::string InputName(NodeId id) const;   // empty when `id` is not an input
  std::string OutputName(NodeId id) const;  // empty when `id` is not an output
  void Fill(GeneratedKernel& generated) const;

 private:
  const Graph& graph_;
  const Kernel& kernel_;
};

}  // namespace kiln

#endif  // KILN_CODEGEN_KERNEL_SIGNATURE_H_
