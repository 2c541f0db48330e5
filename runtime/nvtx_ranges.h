// NVTX ranges in kiln's own "kiln" domain, so that Nsight Systems (`nsys
// profile`) shows each kernel launch on its timeline under a readable name.
// NVTX3 is header-only: with no tool attached a range costs a branch, and kiln
// needs neither an NVTX library nor a GPU to link or start. A build whose
// toolkit lacks the NVTX3 headers gets ranges that do nothing.
//
//   NvtxRanges ranges({"f0_pointwise: t1 t2 y", "f1_row_reduction: m s"});
//   ranges.Push(1); ...launch kernel 1...; ranges.Pop();
#ifndef KILN_RUNTIME_NVTX_RANGES_H_
#define KILN_RUNTIME_NVTX_RANGES_H_

#include <string>
#include <vector>

namespace kiln {

class NvtxRanges {
 public:
  // Registers every name once, so a push passes a handle, not a string.
  explicit NvtxRanges(const std::vector<std::string>& names);

  // Opens range `i` on the calling thread; ranges nest, Pop closes the latest.
  void Push(size_t i) const;
  void Pop() const;

  // False when kiln was built without the NVTX3 headers.
  static bool Enabled();

 private:
  std::vector<const void*> handles_;  // nvtxStringHandle_t per name
};

}  // namespace kiln

#endif  // KILN_RUNTIME_NVTX_RANGES_H_
