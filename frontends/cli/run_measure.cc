#include "frontends/cli/run_measure.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/dump_folder.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/ncu_report.h"
#include "frontends/cli/planned_graph.h"
#include "frontends/cli/subprocess.h"
#include "runtime/device.h"
#include "runtime/executable.h"

namespace kiln {
namespace {

std::string NcuProgram() {
  const char* configured = std::getenv("KILN_NCU");
  return FindProgram(configured != nullptr && *configured != '\0' ? configured : "ncu");
}

// The GPU the child will plan for, so that this process's model is the plan
// the child runs: the device's limits while it is open, then closed, so ncu's
// child does not share the GPU with a context of ours. No GPU: the defaults.
PlanTarget Target(const FlagValues& flags) {
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(0);
  const bool found = device.ok();
  return PlanTarget{.gpu = found ? (*device)->info().name : DefaultTargetName(flags),
                    .limits = LimitsFromFlags(flags, found ? DeviceLimitsOf((*device)->info()) : DeviceLimits{})};
}

// Tunes the plan's matmul kernels in this process, so that the child finds
// their configs in the disk tuning cache: tuned under ncu, every candidate's
// launches would be profiled in place of the plan's own.
absl::Status TuneBeforeProfiling(const FlagValues& flags, const PlannedGraph& planned) {
  const Plan& plan = planned.Chosen(flags.Switch(kUnfused));
  const bool has_matmul = std::any_of(plan.kernels.begin(), plan.kernels.end(),
                                      [](const Kernel& k) { return k.kind == KernelKind::kMatmul; });
  if (!has_matmul || flags.Text(kAutotune) != "on" || flags.Has(kMatmulTile)) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(0);
  if (!device.ok()) return absl::OkStatus();  // the child reports the missing GPU
  KernelCache cache;
  return Executable::Compile(planned.graph, **device, cache,
                             {.fuse = !flags.Switch(kUnfused),
                              .plan = planned.target.options,
                              .limits = planned.target.limits})
      .status();
}

// A folder that is removed when this goes out of scope, unless kept.
class WorkFolder {
 public:
  WorkFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln-measure.XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~WorkFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// "kiln run under ncu failed (exit 1): no GPU to run on: ...": the last line
// the program printed, which for a kiln child is its own error line.
std::string Failure(absl::string_view what, const ProcessResult& result) {
  std::string why = LastLine(result.err);
  if (why.empty()) why = LastLine(result.out);
  absl::string_view shown = why;
  absl::ConsumePrefix(&shown, "kiln: ");
  return absl::StrCat(what, " failed (exit ", result.exit_code, "): ", why.empty() ? "no output" : shown);
}

}  // namespace

int RunMeasuredCommand(const CommandLine& line) {
  const FlagValues& flags = line.flags;
  const std::string ncu = NcuProgram();
  if (ncu.empty()) {
    return ReportError(absl::FailedPreconditionError(
        "--measure needs Nsight Compute, and ncu is not on PATH (set KILN_NCU to its path)"));
  }
  PlannedGraph planned;
  if (int status = PlanForTarget(line, Target(flags), planned); status != kExitOk) return status;
  const PlanTarget& target = planned.target;
  const bool unfused = flags.Switch(kUnfused);
  const Plan& plan = planned.Chosen(unfused);
  if (absl::Status s = TuneBeforeProfiling(flags, planned); !s.ok()) return ReportError(planned.InFile(s));

  WorkFolder work;
  if (work.path().empty()) return ReportError(absl::InternalError("cannot create a temporary folder for ncu"));
  std::string report = absl::StrCat(work.path(), "/ncu");
  std::optional<DumpFolder> dump;
  if (flags.Has(kDump)) {
    absl::StatusOr<DumpFolder> folder = DumpPlan(flags.Text(kDump), planned, plan, target.limits);
    if (!folder.ok()) return ReportError(folder.status());
    dump = *std::move(folder);
    report = dump->PathOf("ncu");
  }

  std::vector<std::string> names;
  for (const Kernel& kernel : plan.kernels) names.push_back(kernel.name);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> child = {self, "run", line.args[0], "--iters=1", "--no-check"};
  for (const std::string& arg : flags.Given({&kUnfused, &kSeed, &kInputs, &kAutotune})) child.push_back(arg);
  for (const std::string& arg : flags.Given(DeviceFlags())) child.push_back(arg);
  // Two launches a kernel: the check run, then the first timed one; kiln run
  // launches many more to time, and ncu would profile them all alike.
  std::vector<std::string> profile = {ncu, "--clock-control", "none", "--metrics",
                                      absl::StrCat(kNcuReadMetric, ",", kNcuWriteMetric), "--kernel-name",
                                      absl::StrCat("regex:^(", absl::StrJoin(names, "|"), ")$"), "--launch-count",
                                      absl::StrCat(2 * names.size()), "--export", report, "--force-overwrite"};
  const std::string command = absl::StrJoin(profile, " ");
  profile.insert(profile.end(), child.begin(), child.end());

  MeasureResult result{.graph = planned.name, .fused = !unfused, .target = target.gpu, .command = command};
  if (!names.empty()) {
    absl::StatusOr<ProcessResult> profiled = RunProcess(profile);
    if (!profiled.ok()) return ReportError(profiled.status());
    if (profiled->exit_code != 0) return ReportError(absl::InternalError(Failure("kiln run under ncu", *profiled)));
    absl::StatusOr<ProcessResult> csv =
        RunProcess({ncu, "--import", absl::StrCat(report, ".ncu-rep"), "--csv", "--page", "raw", "--print-units",
                    "base"});
    if (!csv.ok()) return ReportError(csv.status());
    if (csv->exit_code != 0) return ReportError(absl::InternalError(Failure("ncu --import", *csv)));
    result.kernels = CompareTraffic(plan, ParseNcuCsv(csv->out));
  }
  if (dump.has_value()) {
    if (absl::Status s = dump->Write("measure.txt", MeasureTable(result)); !s.ok()) return ReportError(s);
    if (absl::Status s = dump->Write("measure.json", MeasureJson(result)); !s.ok()) return ReportError(s);
  }
  absl::PrintF("%s", flags.Switch(kJson) ? MeasureJson(result) : MeasureTable(result));
  return kExitOk;
}

}  // namespace kiln
