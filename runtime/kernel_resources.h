// What ptxas gave one compiled kernel (registers, stack, spills, static shared
// memory), read from its verbose report through NVRTC. It needs no GPU, so
// `kiln plan --resources` shows, on any machine, the occupancy a kernel will
// get and the local-memory traffic its spills add.
//
//   absl::StatusOr<KernelResources> r = CompiledResources({kernel.Source(), kernel.name}, "sm_90a");
//   r->registers          // 40
//   r->spill_store_bytes  // 4: bytes a thread stores to local memory
//
// ParsePtxasResources reads a log such as
//   ptxas info    : Compiling entry function 'k' for 'sm_90a'
//   ptxas info    : Function properties for k
//   ptxas         .     48 bytes stack frame, 102 bytes spill stores, 136 bytes spill loads
//   ptxas info    : Used 32 registers, used 0 barriers, 2048 bytes smem
#ifndef KILN_RUNTIME_KERNEL_RESOURCES_H_
#define KILN_RUNTIME_KERNEL_RESOURCES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_source.h"

namespace kiln {

struct KernelResources {
  int registers = 0;                // a thread's
  int64_t stack_bytes = 0;          // a thread's local memory: its stack frame, spills included
  int64_t spill_store_bytes = 0;    // a thread's stores to local memory that ptxas spilled
  int64_t spill_load_bytes = 0;     // and the loads that read them back
  int64_t static_shared_bytes = 0;  // a block's __shared__ arrays (dynamic shared memory comes at launch)

  bool Spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
  bool operator==(const KernelResources&) const = default;
};

// The figures for entry function `kernel` in a ptxas verbose log; an error
// names the kernel when the log has no report of it, or a malformed one.
absl::StatusOr<KernelResources> ParsePtxasResources(absl::string_view log, absl::string_view kernel);

// Compiles `src` for `arch` with the verbose report and reads `src`'s
// kernel (src.name_for_errors) from it.
absl::StatusOr<KernelResources> CompiledResources(const KernelSource& src, absl::string_view arch);

}  // namespace kiln

#endif  // KILN_RUNTIME_KERNEL_RESOURCES_H_
