// What `kiln sweep` varies and over which sizes, from its flags.
//
//   --dim=x:1                      -> {.input = "x", .axis = 1}
//   --range=1:1024 --steps=4       -> 1 10 102 1024   (geometric, endpoints included)
//   --range=0:100 --step=25        -> refused: sizes start at 1
//   --range=1:100 --step=40        -> 1 41 81 100
//   --range=7,64,50257             -> 7 64 50257
// Each error is the one line kiln prints, naming the flag.
#ifndef KILN_FRONTENDS_CLI_SWEEP_SIZES_H_
#define KILN_FRONTENDS_CLI_SWEEP_SIZES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontends/cli/flags.h"

namespace kiln {

struct SweptDim {
  std::string input;
  int axis = 0;
};

// --dim=NAME:AXIS, parsed; whether NAME and AXIS exist is the graph's question.
absl::StatusOr<SweptDim> SweptDimFromFlags(const FlagValues& flags);

// The sizes of --range with --steps or --step: increasing, each at least 1,
// no size twice.
absl::StatusOr<std::vector<int64_t>> SweepSizesFromFlags(const FlagValues& flags);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_SWEEP_SIZES_H_
