#include "frontends/cli/ncu_report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "fusion/plan_report.h"
#include "graph/json.h"

namespace kiln {
namespace {

// One CSV record: quoted fields may hold commas, and "" inside quotes is a quote.
std::vector<std::string> CsvFields(absl::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// "1,073,741,824" -> 1073741824; empty or text -> nullopt.
std::optional<double> Number(absl::string_view text) {
  double value = 0;
  const std::string digits = absl::StrReplaceAll(absl::StripAsciiWhitespace(text), {{",", ""}});
  if (digits.empty() || !absl::SimpleAtod(digits, &value)) return std::nullopt;
  return value;
}

// "f0_pointwise(const float *, float *)" -> "f0_pointwise"
std::string BaseName(absl::string_view name) {
  return std::string(absl::StripAsciiWhitespace(name.substr(0, name.find('('))));
}

void SetMetric(NcuLaunch& launch, absl::string_view metric, absl::string_view value) {
  if (metric == kNcuReadMetric) launch.read_bytes = Number(value);
  if (metric == kNcuWriteMetric) launch.write_bytes = Number(value);
}

std::string Bytes(const std::optional<double>& v) {
  return v.has_value() ? GroupedNumber(static_cast<int64_t>(std::llround(*v))) : "-";
}

std::string Off(const std::optional<double>& measured, int64_t model) {
  if (!measured.has_value() || model == 0) return "-";
  return absl::StrFormat("%+.1f%%", 100 * (*measured - model) / model);
}

std::string OptionalJson(const std::optional<double>& v, int decimals) {
  return v.has_value() ? JsonFixed(*v, decimals) : "null";
}

}  // namespace

std::vector<NcuLaunch> ParseNcuCsv(absl::string_view text) {
  std::vector<std::string> header;
  std::map<int, NcuLaunch> launches;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (header.empty()) {
      if (absl::StartsWith(line, "\"ID\"")) header = CsvFields(line);
      continue;
    }
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    const std::vector<std::string> fields = CsvFields(line);
    auto field = [&](absl::string_view column) -> absl::string_view {
      for (size_t i = 0; i < header.size() && i < fields.size(); ++i) {
        if (header[i] == column) return fields[i];
      }
      return "";
    };
    const std::optional<double> id = Number(field("ID"));
    if (!id.has_value()) continue;  // the raw page's units row
    NcuLaunch& launch = launches[static_cast<int>(*id)];
    launch.id = static_cast<int>(*id);
    launch.kernel = BaseName(field("Kernel Name"));
    if (std::find(header.begin(), header.end(), "Metric Name") != header.end()) {
      SetMetric(launch, field("Metric Name"), field("Metric Value"));
    } else {
      SetMetric(launch, kNcuReadMetric, field(kNcuReadMetric));
      SetMetric(launch, kNcuWriteMetric, field(kNcuWriteMetric));
    }
  }
  std::vector<NcuLaunch> ordered;
  for (auto& [id, launch] : launches) ordered.push_back(std::move(launch));
  return ordered;
}

std::vector<MeasuredKernel> CompareTraffic(const Plan& plan, const std::vector<NcuLaunch>& launches) {
  std::vector<MeasuredKernel> rows;
  for (const Kernel& kernel : plan.kernels) {
    MeasuredKernel row{.kernel = kernel.name,
                       .kind = std::string(KernelKindName(kernel.kind)),
                       .strategy = kernel.Strategy(),
                       .model_read = kernel.traffic.bytes_read,
                       .model_write = kernel.traffic.bytes_written};
    const NcuLaunch* last = nullptr;
    for (const NcuLaunch& launch : launches) {
      if (launch.kernel != kernel.name) continue;
      ++row.launches;
      last = &launch;
    }
    if (last == nullptr) {
      row.note = "no launch of this kernel was profiled";
    } else if (!last->read_bytes.has_value() || !last->write_bytes.has_value()) {
      row.note = "ncu reported no value for a DRAM metric";
    } else {
      row.measured_read = last->read_bytes;
      row.measured_write = last->write_bytes;
      const int64_t model = row.model_read + row.model_write;
      if (model > 0) {
        row.deviation = (*last->read_bytes + *last->write_bytes - model) / model;
        row.flagged = std::abs(*row.deviation) > kTrafficTolerance;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string MeasureTable(const MeasureResult& result) {
  constexpr absl::string_view kFormat = "%-18s %16s %16s %8s %16s %16s %8s %8s  %s\n";
  std::string out = absl::StrFormat(
      "%s (%s plan): DRAM bytes measured by Nsight Compute against the model for %s; flagged beyond %.0f%%\n",
      result.graph, result.fused ? "fused" : "unfused", result.target, kTrafficTolerance * 100);
  absl::StrAppendFormat(&out, kFormat, "kernel", "model read", "measured read", "off", "model written",
                        "measured written", "off", "total", "");
  for (const MeasuredKernel& k : result.kernels) {
    const std::string total = k.deviation.has_value() ? absl::StrFormat("%+.1f%%", 100 * *k.deviation) : "-";
    absl::StrAppendFormat(&out, kFormat, k.kernel, GroupedNumber(k.model_read), Bytes(k.measured_read),
                          Off(k.measured_read, k.model_read), GroupedNumber(k.model_write), Bytes(k.measured_write),
                          Off(k.measured_write, k.model_write), total, k.flagged ? "FLAG" : k.note);
  }
  // The table's last column is empty for an unflagged kernel without a note.
  std::string trimmed;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&trimmed, absl::StripTrailingAsciiWhitespace(line), "\n");
  }
  return trimmed;
}

std::string MeasureJson(const MeasureResult& result) {
  std::vector<std::string> kernels;
  for (const MeasuredKernel& k : result.kernels) {
    kernels.push_back(JsonObject({
        {"kernel", JsonString(k.kernel)},
        {"kind", JsonString(k.kind)},
        {"strategy", JsonString(k.strategy)},
        {"model_read", JsonInt(k.model_read)},
        {"model_write", JsonInt(k.model_write)},
        {"measured_read", OptionalJson(k.measured_read, 0)},
        {"measured_write", OptionalJson(k.measured_write, 0)},
        {"launches", JsonInt(k.launches)},
        {"deviation", OptionalJson(k.deviation, 4)},
        {"flagged", JsonBool(k.flagged)},
        {"note", JsonString(k.note)},
    }));
  }
  return JsonObjectLines({{"graph", JsonString(result.graph)},
                          {"plan", JsonString(result.fused ? "fused" : "unfused")},
                          {"target", JsonString(result.target)},
                          {"command", JsonString(result.command)},
                          {"tolerance", JsonFixed(kTrafficTolerance, 2)},
                          {"kernels", JsonArrayLines(kernels, 2)}},
                         0) +
         "\n";
}

}  // namespace kiln
