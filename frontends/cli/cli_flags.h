// Every flag of the `kiln` commands except the device flags (device_flags.h),
// declared once each. The command table lists which commands take which;
// a flag used by several commands means the same thing in each.
//
//   line.flags.Switch(kJson)    line.flags.Int(kIters)    line.flags.Text(kDump)
#ifndef KILN_FRONTENDS_CLI_CLI_FLAGS_H_
#define KILN_FRONTENDS_CLI_CLI_FLAGS_H_

#include "frontends/cli/flags.h"

namespace kiln {

// Shared by several commands.
inline constexpr Flag kJson{.name = "json", .help = "print the result as JSON"};
inline constexpr Flag kUnfused{.name = "unfused", .help = "use the unfused baseline: one kernel per op"};
inline constexpr Flag kSeed{.name = "seed",
                            .kind = FlagKind::kInt,
                            .value = "N",
                            .help = "seed of the random inputs; input i gets seed N + i",
                            .default_value = "1",
                            .min = 0};
inline constexpr Flag kResources{.name = "resources",
                                 .help = "also compile each kernel of the plan with NVRTC (no GPU needed) and show "
                                         "the registers, spills and shared memory ptxas gave it, the blocks an SM "
                                         "then holds and the waves its grid takes"};
inline constexpr Flag kDump{.name = "dump",
                            .kind = FlagKind::kText,
                            .value = "DIR",
                            .help = "write the graph, the plan, the explanation and each kernel's CUDA source "
                                    "into DIR (run adds its results)",
                            .env = "KILN_DUMP_DIR"};

// eval and run: the user's own tensors (tensor_io_flags.h).
inline constexpr Flag kInputs{.name = "inputs",
                              .kind = FlagKind::kText,
                              .value = "NAME=FILE.npy,...",
                              .help = "graph inputs from NumPy files; inputs not named are seeded random"};
inline constexpr Flag kSaveOutputs{.name = "save-outputs",
                                   .kind = FlagKind::kText,
                                   .value = "DIR",
                                   .help = "write every output to DIR as <name>.npy"};

// eval
inline constexpr Flag kScaleDown{.name = "scale-down",
                                 .help = "cut every dim to at most 256 first, so that big graphs evaluate in moments"};

// workload
inline constexpr Flag kOut{.name = "out",
                           .kind = FlagKind::kText,
                           .value = "FILE",
                           .help = "write the graph to FILE (text or binary by its extension) instead of stdout"};

// plan
inline constexpr Flag kDot{.name = "dot",
                           .help = "print Graphviz source instead of the table: a cluster per kernel, the bytes on "
                                   "each edge between kernels"};
inline constexpr Flag kSvg{.name = "svg",
                           .kind = FlagKind::kText,
                           .value = "FILE",
                           .help = "also render that drawing to FILE (needs Graphviz's dot)"};
inline constexpr Flag kExplain{.name = "explain",
                               .help = "add why each kernel has its strategy and why each fusion boundary exists"};

// run
inline constexpr Flag kIters{.name = "iters",
                             .kind = FlagKind::kInt,
                             .value = "N",
                             .help = "timed repetitions; the median is reported",
                             .default_value = "50",
                             .min = 1,
                             .max = 1000000};
inline constexpr Flag kNoCheck{.name = "no-check", .help = "skip the check against the CPU reference"};
inline constexpr Flag kSaveIo{.name = "save-io",
                              .kind = FlagKind::kText,
                              .value = "DIR",
                              .help = "write the inputs and outputs as raw tensors, with io.json, into DIR"};
inline constexpr Flag kTrace{.name = "trace",
                             .kind = FlagKind::kText,
                             .value = "FILE",
                             .help = "write a Chrome trace (Perfetto, chrome://tracing) of one run's kernels to FILE"};
inline constexpr Flag kAutotune{.name = "autotune",
                                .kind = FlagKind::kChoice,
                                .value = "on|off",
                                .help = "time each matmul's candidate configs on first use and keep the fastest in the "
                                        "tuning cache, and time the launch bounds that spill and the cluster sizes "
                                        "of rows that run in waves (off: the planner's choices)",
                                .default_value = "on"};
inline constexpr Flag kMeasure{.name = "measure",
                               .help = "profile one run with Nsight Compute (ncu) and print each kernel's measured "
                                       "DRAM bytes next to the model's"};

// sweep
inline constexpr Flag kDim{.name = "dim",
                           .kind = FlagKind::kText,
                           .value = "NAME:AXIS",
                           .help = "the dim that varies: axis AXIS of input NAME (dims tied to it follow)"};
inline constexpr Flag kRange{.name = "range",
                             .kind = FlagKind::kText,
                             .value = "A:B",
                             .help = "the sizes it takes, A to B inclusive (or a list: 1,7,64)"};
inline constexpr Flag kSteps{.name = "steps",
                             .kind = FlagKind::kInt,
                             .value = "N",
                             .help = "N sizes from A to B in geometric steps",
                             .default_value = "24",
                             .min = 2,
                             .max = 1000};
inline constexpr Flag kStep{.name = "step",
                            .kind = FlagKind::kInt,
                            .value = "S",
                            .help = "sizes A, A+S, A+2S, ... and B instead of geometric steps",
                            .min = 1};
inline constexpr Flag kSweepRun{.name = "run",
                                .help = "also compile and time every step on the GPU, marking steps over 1.1x the "
                                        "bound"};
inline constexpr Flag kSweepSvg{.name = "svg",
                                .kind = FlagKind::kText,
                                .value = "FILE",
                                .help = "also plot the sweep to FILE as SVG: bound (and measured) us against the size"};

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_CLI_FLAGS_H_
