// The command table: every `kiln` command, its arguments, the flags it takes
// and its help. Adding a command is one row here plus its function; adding a
// flag to a command is its declaration (cli_flags.h, device_flags.h) plus one
// entry in the command's `flags` below.
#include <vector>

#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"

namespace kiln {
namespace {

// `own` followed by `group`: a command's flags, then a shared group of them.
std::vector<const Flag*> With(std::vector<const Flag*> own, const std::vector<const Flag*>& group) {
  own.insert(own.end(), group.begin(), group.end());
  return own;
}

constexpr absl::string_view kMeasureAlone = "--measure profiles one run of its own";

std::vector<Command> MakeTable() {
  return {
      {.name = "check",
       .args = "FILE",
       .summary = "load and verify a graph file, and summarize it",
       .description = "Loads FILE (text or binary protobuf, by its extension), verifies it and prints its "
                      "inputs, outputs and ops. A bad file gets one line naming the node and the problem.",
       .run = RunCheckCommand},
      {.name = "eval",
       .args = "FILE",
       .summary = "run the CPU reference interpreter on seeded random or .npy inputs",
       .description = "Evaluates FILE with the CPU reference interpreter (in double, rounding each node to "
                      "its dtype) on seeded random inputs, or the NumPy files --inputs names, and summarizes "
                      "every output (--save-outputs also writes each as .npy). Tensors over 2^26 elements are "
                      "refused unless --scale-down cuts the graph first.",
       .flags = {&kSeed, &kInputs, &kSaveOutputs, &kScaleDown},
       .exclusions = {{&kScaleDown, &kInputs, "scaling down changes the input shapes"}},
       .run = RunEvalCommand},
      {.name = "workload",
       .args = "NAME DTYPE DIMS",
       .summary = "write a bundled workload as a graph file",
       .description = "Builds one of the bundled workloads (gelu_naive, softmax_naive, row_sum, matmul_relu, "
                      "matmul_bias_gelu, attention_naive, attention_causal) for DTYPE (f32, f16, bf16) at DIMS "
                      "(e.g. 16384x16384; M×N×K for the matmuls, B×H×S×D for attention) and prints it as "
                      "text, or writes it to --out.",
       .flags = {&kOut},
       .run = RunWorkloadCommand},
      {.name = "plan",
       .args = "FILE",
       .summary = "the fused and unfused plans: kernels, strategies, HBM bytes",
       .description = "Plans FILE for the target GPU (an H200 unless the device flags describe another) and "
                      "prints the fused plan's kernels, the unfused baseline's, and the bytes each moves "
                      "through HBM.",
       .flags = With({&kJson, &kDot, &kSvg, &kExplain, &kResources, &kDump}, DeviceFlags()),
       .exclusions = {{&kJson, &kDot, "both print the plan"},
                      {&kDot, &kExplain, "the drawing holds no explanation; use the table or --json"},
                      {&kDot, &kResources, "the drawing holds no resources; use the table or --json"}},
       .run = RunPlanCommand},
      {.name = "emit",
       .args = "FILE",
       .summary = "the CUDA source of the plan's kernels, as one translation unit",
       .description = "Prints kiln's device library and every kernel of the plan as one CUDA translation "
                      "unit that `nvcc -gencode=arch=compute_90a,code=sm_90a -c` compiles as it is. Each "
                      "kernel is preceded by its launch configuration and the graph values its parameters "
                      "carry.",
       .flags = With({&kUnfused, &kDump}, DeviceFlags()),
       .run = RunEmitCommand},
      {.name = "run",
       .args = "FILE",
       .summary = "compile, run, check and time the plan on the GPU",
       .description = "Compiles the plan with NVRTC for the GPU (planning with the GPU's own limits), runs "
                      "it on seeded random inputs (or --inputs), checks the outputs against the CPU reference "
                      "and times every kernel: median time, GB/s, and the fraction of a device-to-device copy "
                      "and of the roofline. Needs a GPU.",
       .flags = With({&kUnfused, &kIters, &kSeed, &kInputs, &kJson, &kNoCheck, &kSaveIo, &kSaveOutputs, &kTrace,
                      &kAutotune, &kMeasure, &kDump},
                     DeviceFlags()),
       .exclusions = {{&kMeasure, &kIters, kMeasureAlone},
                      {&kMeasure, &kNoCheck, kMeasureAlone},
                      {&kMeasure, &kSaveIo, kMeasureAlone},
                      {&kMeasure, &kSaveOutputs, kMeasureAlone},
                      {&kMeasure, &kTrace, kMeasureAlone}},
       .run = RunRunCommand},
      {.name = "tune",
       .args = "FILE",
       .summary = "tune the plan's matmul kernels on the GPU ahead of time",
       .description = "Times each matmul kernel's candidate configs on the GPU (compiled in parallel) and keeps "
                      "the fastest in the tuning cache beside the kernel cache, so that later runs of the graph, "
                      "in any process, start with it. Prints each kernel's config, where it came from (tuned, "
                      "or the tuning cache when an equal kernel was tuned before) and the times. Needs a GPU.",
       .flags = DeviceFlags(),
       .run = RunTuneCommand},
      {.name = "sweep",
       .args = "FILE",
       .summary = "the plans as one input dim grows: where they change, and the bound",
       .description = "Plans FILE at every size of one input dim (--dim=NAME:AXIS over --range=A:B, geometric "
                      "steps unless --step), with every dim tied to it following, and prints per size the kernels, "
                      "each one's strategy, threads and cluster, the HBM bytes and the roofline bound, marking the "
                      "sizes where the plan changes. --resources adds each kernel's registers, spills, blocks "
                      "an SM and waves from NVRTC and marks where the occupancy changes; --run also times every "
                      "size on the GPU and marks the sizes over 1.1x their bound; --svg plots it all.",
       .flags = With({&kDim, &kRange, &kSteps, &kStep, &kUnfused, &kResources, &kSweepRun, &kIters, &kJson,
                      &kSweepSvg},
                     DeviceFlags()),
       .exclusions = {{&kSteps, &kStep, "both say how far apart the sizes are"}},
       .run = RunSweepCommand},
      {.name = "convert",
       .args = "MODEL OUT",
       .summary = "write an ONNX model (or a graph file) in kiln's graph format",
       .description = "Reads MODEL, an ONNX file or a kiln graph file, and writes it to OUT in kiln's graph "
                      "format, text or binary protobuf by OUT's extension (.textproto, .pb). An ONNX op kiln "
                      "cannot express is refused, naming the node, the op and the opset.",
       .run = RunConvertCommand},
  };
}

}  // namespace

const std::vector<Command>& CommandTable() {
  static const std::vector<Command>* const table = new std::vector<Command>(MakeTable());
  return *table;
}

}  // namespace kiln
