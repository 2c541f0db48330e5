#include "runtime/kernel_resources.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

// Reads each ", "-separated clause of a report line, "<number> <what>"
// after any prefix ("ptxas info    : Used 32 registers"), into `r`. Clauses
// kiln does not use (barriers, cumulative stack size) are skipped. Returns
// whether the line named the registers.
bool ReadClauses(absl::string_view line, KernelResources& r) {
  bool registers = false;
  for (absl::string_view clause : absl::StrSplit(line, ',')) {
    const std::vector<absl::string_view> words = absl::StrSplit(clause, ' ', absl::SkipWhitespace());
    for (size_t i = 0; i < words.size(); ++i) {
      int64_t value = 0;
      if (!absl::SimpleAtoi(words[i], &value)) continue;
      const std::string what = absl::StrJoin(words.begin() + i + 1, words.end(), " ");
      if (what == "registers") {
        r.registers = static_cast<int>(value);
        registers = true;
      } else if (what == "bytes stack frame") {
        r.stack_bytes = value;
      } else if (what == "bytes spill stores") {
        r.spill_store_bytes = value;
      } else if (what == "bytes spill loads") {
        r.spill_load_bytes = value;
      } else if (what == "bytes smem") {
        r.static_shared_bytes = value;
      }
      break;
    }
  }
  return registers;
}

}  // namespace

absl::StatusOr<KernelResources> ParsePtxasResources(absl::string_view log, absl::string_view kernel) {
  const std::vector<absl::string_view> lines = absl::StrSplit(log, '\n');
  const std::string entry = absl::StrCat("Compiling entry function '", kernel, "'");
  const std::string properties = absl::StrCat("Function properties for ", kernel);
  size_t at = 0;
  while (at < lines.size() && !absl::StrContains(lines[at], entry)) ++at;
  if (at == lines.size()) {
    return absl::NotFoundError(absl::StrCat("ptxas reported no resources for kernel ", kernel));
  }
  KernelResources r;
  bool registers = false;
  for (size_t i = at + 1; i < lines.size() && !absl::StrContains(lines[i], "Compiling entry function"); ++i) {
    if (absl::EndsWith(absl::StripTrailingAsciiWhitespace(lines[i]), properties) && i + 1 < lines.size()) {
      ReadClauses(lines[++i], r);
    } else if (absl::StrContains(lines[i], ": Used ")) {
      registers = ReadClauses(lines[i], r) || registers;
    }
  }
  if (!registers) {
    return absl::InternalError(absl::StrCat("ptxas's report for kernel ", kernel, " names no register count"));
  }
  return r;
}

absl::StatusOr<KernelResources> CompiledResources(const KernelSource& src, absl::string_view arch) {
  absl::StatusOr<CompiledCubin> compiled = Compile(src, arch, PtxasLog::kResourceUsage);
  if (!compiled.ok()) return compiled.status();
  return ParsePtxasResources(compiled->log, src.name_for_errors);
}

}  // namespace kiln
