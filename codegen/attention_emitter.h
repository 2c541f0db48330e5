// CUDA source for an attention kernel (kind kAttention): the flash-style
// kernel of codegen/device/kiln_sm90_attention.cuh instantiated for the
// schedule, Q, K and V read through TMA descriptors, and the chain's score
// program (scale, masks, biases) as the logits function applied to every
// score on chip. O is stored in pairs straight from registers.
//
//   absl::StatusOr<GeneratedKernel> k = EmitAttentionKernel(graph, kernel);
//   k->params   // mask and bias pointers, O, then the descriptors of Q, K, V
#ifndef KILN_CODEGEN_ATTENTION_EMITTER_H_
#define KILN_CODEGEN_ATTENTION_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitAttentionKernel(const Graph& graph, const Kernel& kernel);

}  // namespace kiln

#endif  // KILN_CODEGEN_ATTENTION_EMITTER_H_
