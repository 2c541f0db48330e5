#include "runtime/nvrtc_compiler.h"

#include <nvrtc.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace kiln {
namespace {

// Destroys the program on every return path.
struct ScopedProgram {
  ScopedProgram() = default;
  ScopedProgram(const ScopedProgram&) = delete;
  ScopedProgram& operator=(const ScopedProgram&) = delete;
  ~ScopedProgram() {
    if (program != nullptr) nvrtcDestroyProgram(&program);
  }
  nvrtcProgram program = nullptr;
};

std::string NumberedSource(absl::string_view code) {
  std::string out;
  int line = 1;
  for (absl::string_view text : absl::StrSplit(code, '\n')) {
    absl::StrAppendFormat(&out, "%4d | %s\n", line++, text);
  }
  return out;
}

absl::Status NvrtcError(nvrtcResult result, absl::string_view call, absl::string_view kernel) {
  return absl::InternalError(
      absl::StrCat(call, " failed for kernel ", kernel, ": ", nvrtcGetErrorString(result)));
}

}  // namespace

std::vector<std::string> NvrtcOptions(absl::string_view arch) {
  return {
      absl::StrCat("--gpu-architecture=", arch),
      "--std=c++17",
      // Helpers kiln emits need no __device__ on each of them.
      "--device-as-default-execution-space",
      // The default IEEE behaviour, spelled out so it is part of the cache key
      // and cannot drift with NVRTC's defaults. FMA contraction stays on: it
      // rounds once, which only brings results closer to the reference.
      "--ftz=false",
      "--prec-div=true",
      "--prec-sqrt=true",
      "--fmad=true",
  };
}

std::string NvrtcVersion() {
  int major = 0;
  int minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return absl::StrCat(major, ".", minor);
}

absl::Status ValidateArch(absl::string_view arch) {
  absl::string_view rest = arch;
  bool ok = absl::ConsumePrefix(&rest, "sm_");
  if (ok && !rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) rest.remove_suffix(1);
  ok = ok && rest.size() >= 2 && rest.size() <= 3 &&
       std::all_of(rest.begin(), rest.end(), absl::ascii_isdigit);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("unsupported GPU architecture \"",
                                                 absl::CHexEscape(arch),
                                                 "\": expected a real architecture such as sm_90"));
}

absl::StatusOr<CompiledCubin> Compile(const KernelSource& src, absl::string_view arch, PtxasLog ptxas_log) {
  if (absl::Status s = ValidateArch(arch); !s.ok()) return s;
  const std::string kernel = src.name_for_errors.empty() ? "kernel" : src.name_for_errors;
  const std::string file_name = absl::StrCat(kernel, ".cu");

  ScopedProgram scoped;
  nvrtcResult r =
      nvrtcCreateProgram(&scoped.program, src.code.c_str(), file_name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return NvrtcError(r, "nvrtcCreateProgram", kernel);

  const nvrtcProgram program = scoped.program;
  std::vector<std::string> options = NvrtcOptions(arch);
  if (ptxas_log == PtxasLog::kResourceUsage) options.push_back("--ptxas-options=-v");
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());

  size_t log_size = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS) {
    if (log.empty()) log = nvrtcGetErrorString(compiled);
    return absl::InvalidArgumentError(absl::StrCat("NVRTC could not compile kernel ", kernel,
                                                   " for ", arch, ":\n", log, "\nsource:\n",
                                                   NumberedSource(src.code)));
  }

  size_t cubin_size = 0;
  r = nvrtcGetCUBINSize(program, &cubin_size);
  if (r != NVRTC_SUCCESS) return NvrtcError(r, "nvrtcGetCUBINSize", kernel);
  std::string cubin(cubin_size, '\0');
  r = nvrtcGetCUBIN(program, cubin.data());
  if (r != NVRTC_SUCCESS) return NvrtcError(r, "nvrtcGetCUBIN", kernel);
  return CompiledCubin{.cubin = std::move(cubin), .log = std::move(log)};
}

absl::StatusOr<std::string> CompileToCubin(const KernelSource& src, absl::string_view arch) {
  absl::StatusOr<CompiledCubin> compiled = Compile(src, arch);
  if (!compiled.ok()) return compiled.status();
  return std::move(compiled->cubin);
}

}  // namespace kiln
