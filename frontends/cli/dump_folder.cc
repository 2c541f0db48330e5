#include "frontends/cli/dump_folder.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "codegen/device_library.h"
#include "codegen/kernel_codegen.h"
#include "frontends/cli/graphviz.h"
#include "frontends/cli/subprocess.h"
#include "frontends/graph_file.h"
#include "graph/atomic_file.h"

namespace kiln {

namespace {

constexpr absl::string_view kDeviceLibraryFile = "kiln_device_library.cuh";

// nvcc's flag for exactly `arch` ("sm_90a" -> "-gencode=arch=compute_90a,code=sm_90a"):
// `-arch=sm_90a` alone also runs a generic compute_90 pass, which lacks the
// sm_90a instructions the matmul kernels use.
std::string NvccArchFlag(absl::string_view arch) {
  return absl::StrCat("-gencode=arch=compute_", absl::StripPrefix(arch, "sm_"), ",code=", arch);
}

}  // namespace

absl::StatusOr<DumpFolder> DumpFolder::Create(std::string dir) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(dir) / "kernels", error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the dump folder ", dir, ": ", error.message()));
  }
  return DumpFolder(std::move(dir));
}

std::string DumpFolder::PathOf(absl::string_view name) const { return absl::StrCat(dir_, "/", name); }

absl::Status DumpFolder::Write(absl::string_view name, absl::string_view contents) const {
  const std::string path = PathOf(name);
  if (absl::Status s = WriteFileAtomically(path, contents); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<DumpFolder> DumpPlan(const std::string& dir, const PlannedGraph& planned, const Plan& kernels_plan,
                                    const DeviceLimits& limits) {
  absl::StatusOr<std::vector<GeneratedKernel>> generated = GeneratePlan(planned.graph, kernels_plan, limits);
  if (!generated.ok()) return planned.InFile(generated.status());
  absl::StatusOr<DumpFolder> folder = DumpFolder::Create(dir);
  if (!folder.ok()) return folder.status();
  const Graph& graph = planned.graph;
  const std::string dot = PlanDot(graph, kernels_plan);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"graph.textproto", SerializeGraphText(graph)},
      {"plan.txt", PlanTable(graph, planned.fused, planned.unfused, planned.target)},
      {"plan.json", PlanJson(graph, planned.name, planned.fused, planned.unfused, planned.target, /*explain=*/true)},
      {"plan.dot", dot},
      {"explain.txt", PlanExplain(graph, kernels_plan)},
      {absl::StrCat("kernels/", kDeviceLibraryFile), std::string(DeviceLibrarySource())},
  };
  for (const auto& [name, contents] : files) {
    if (absl::Status s = folder->Write(name, contents); !s.ok()) return s;
  }
  const std::vector<std::string> comments = KernelComments(graph, kernels_plan, *generated);
  for (size_t k = 0; k < generated->size(); ++k) {
    const std::string& name = kernels_plan.kernels[k].name;
    const std::string source =
        absl::StrCat("// Kernel ", name, " of ", planned.name, " (", kernels_plan.fused ? "fused" : "unfused",
                     " plan), from `kiln --dump`. Compiles on its own: nvcc ", NvccArchFlag(limits.Arch()),
                     " -c ", name, ".cu\n",
                     "#include \"", kDeviceLibraryFile, "\"\n\n", comments[k], (*generated)[k].body);
    if (absl::Status s = folder->Write(absl::StrCat("kernels/", name, ".cu"), source); !s.ok()) return s;
  }
  if (FindProgram("dot").empty()) {
    absl::FPrintF(stderr, "kiln: %s has no plan.svg: Graphviz's dot is not on PATH (plan.dot holds the drawing)\n",
                  folder->dir());
  } else if (absl::Status s = RenderSvg(dot, folder->PathOf("plan.svg")); !s.ok()) {
    return s;
  }
  return folder;
}

}  // namespace kiln
