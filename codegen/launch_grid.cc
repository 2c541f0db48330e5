#include "codegen/launch_grid.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kiln {

absl::StatusOr<unsigned> LaunchGrid(absl::string_view kernel, int64_t blocks) {
  if (blocks < 1) {
    return absl::InternalError(absl::StrCat("kernel ", kernel, " computed a launch of ", blocks, " blocks"));
  }
  if (blocks > kMaxGridBlocks) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel, " needs ", blocks,
                                                   " blocks; a launch grid holds at most ", kMaxGridBlocks));
  }
  return static_cast<unsigned>(blocks);
}

unsigned CappedGrid(int64_t blocks) { return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, kMaxGridBlocks)); }

}  // namespace kiln
