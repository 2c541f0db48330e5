#include "frontends/cli/run_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "fusion/plan_report.h"
#include "graph/json.h"

namespace kiln {
namespace {

constexpr absl::string_view kHeaderFormat = "%-18s %-44s %10s %10s %8s %11s\n";
constexpr absl::string_view kRowFormat = "%-18s %-44s %10.1f %10.0f %7.1f%% %10.1f%%\n";

double BytesPerSecond(const RunFigures& f) { return static_cast<double>(f.traffic.bytes()) / (f.us * 1e-6); }

std::string PlanName(const RunResult& result) { return result.fused ? "fused" : "unfused"; }

std::string FiguresJson(const RunResult& result, const RunFigures& f, JsonMembers members) {
  const double bps = BytesPerSecond(f);
  const JsonMembers figures = {
      {"us", JsonFixed(f.us, 3)},
      {"bytes", JsonInt(f.traffic.bytes())},
      {"bytes_read", JsonInt(f.traffic.bytes_read)},
      {"bytes_written", JsonInt(f.traffic.bytes_written)},
      {"flops", JsonFixed(f.traffic.flops, 0)},
      {"gbps", JsonFixed(bps / 1e9, 1)},
      {"fraction_of_copy", JsonFixed(bps / result.copy_bytes_per_second, 4)},
      {"roofline_us", JsonFixed(f.roofline_us, 3)},
      {"fraction_of_roofline", JsonFixed(f.roofline_us / f.us, 4)},
  };
  members.insert(members.end(), figures.begin(), figures.end());
  return JsonObject(members);
}

}  // namespace

std::string RunTable(const RunResult& result) {
  std::string out = absl::StrFormat("%s (%s plan) on %s; copy ceiling %.0f GB/s\n", result.graph, PlanName(result),
                                    result.gpu, result.copy_bytes_per_second / 1e9);
  absl::StrAppendFormat(&out, kHeaderFormat, "kernel", "strategy", "time us", "GB/s", "% copy", "% roofline");
  auto row = [&](const RunFigures& f) {
    const double bps = BytesPerSecond(f);
    absl::StrAppendFormat(&out, kRowFormat, f.name, f.strategy, f.us, bps / 1e9,
                          100 * bps / result.copy_bytes_per_second, 100 * f.roofline_us / f.us);
  };
  for (const RunFigures& kernel : result.kernels) row(kernel);
  row(result.total);
  absl::StrAppendFormat(&out, "a copy of the plan's %.4g MB runs at %.0f GB/s: the plan reaches %.1f%% of it\n",
                        result.total.traffic.bytes() / 1e6, result.same_size_copy_bytes_per_second / 1e9,
                        100 * BytesPerSecond(result.total) / result.same_size_copy_bytes_per_second);
  for (const RunFigures& kernel : result.kernels) {
    if (!kernel.compile_note.empty()) absl::StrAppendFormat(&out, "%s: %s\n", kernel.name, kernel.compile_note);
  }
  if (result.check.checked) {
    absl::StrAppendFormat(&out, "check: max relative error %.3g (tolerance %.0e): %s\n", result.check.max_error,
                          result.check.tolerance, result.check.Passed() ? "PASS" : "FAIL");
  }
  absl::StrAppendFormat(&out,
                        "compile %.1f ms (%d compiled, %d from disk cache); first result after %.1f ms; host %.2f us "
                        "per Run (%s)\n",
                        result.compile_ms, result.cache.compiles, result.cache.disk_hits, result.first_result_ms,
                        result.host_us_per_run, result.run_launch);
  return out;
}

std::string RunJson(const RunResult& result) {
  std::vector<std::string> kernels;
  for (const RunFigures& k : result.kernels) {
    const std::string matmul =
        k.matmul_config.empty() ? "null"
                                : JsonObject({{"config", JsonString(k.matmul_config)},
                                              {"source", JsonString(k.matmul_config_source)}});
    kernels.push_back(FiguresJson(result, k,
                                  {{"name", JsonString(k.name)},
                                   {"kind", JsonString(k.kind)},
                                   {"strategy", JsonString(k.strategy)},
                                   {"matmul", matmul},
                                   {"compile_note", JsonString(k.compile_note)}}));
  }
  const RunCheck& check = result.check;
  return JsonObjectLines(
             {
                 {"kiln", JsonString(result.kiln)},
                 {"graph", JsonString(result.graph)},
                 {"plan", JsonString(PlanName(result))},
                 {"gpu", JsonString(result.gpu)},
                 {"nvrtc", JsonString(result.nvrtc)},
                 {"copy_gbps", JsonFixed(result.copy_bytes_per_second / 1e9, 1)},
                 {"same_size_copy_gbps", JsonFixed(result.same_size_copy_bytes_per_second / 1e9, 1)},
                 {"iters", JsonInt(result.iters)},
                 {"total", FiguresJson(result, result.total, {})},
                 {"total_fraction_of_same_size_copy",
                  JsonFixed(BytesPerSecond(result.total) / result.same_size_copy_bytes_per_second, 4)},
                 {"kernels", JsonArrayLines(kernels, 2)},
                 {"check", JsonObject({{"max_rel_error", JsonNumber(check.max_error, 3)},
                                       {"tolerance", JsonNumber(check.tolerance, 1)},
                                       {"passed", JsonBool(check.Passed())},
                                       {"checked", JsonBool(check.checked)}})},
                 {"compile_ms", JsonFixed(result.compile_ms, 1)},
                 {"first_result_ms", JsonFixed(result.first_result_ms, 1)},
                 {"inputs_drawn_on_device", JsonBool(result.inputs_drawn_on_device)},
                 {"host_us_per_run", JsonFixed(result.host_us_per_run, 2)},
                 {"run_launch", JsonString(result.run_launch)},
                 {"cache", JsonObject({{"compiles", JsonInt(result.cache.compiles)},
                                       {"disk_hits", JsonInt(result.cache.disk_hits)},
                                       {"memory_hits", JsonInt(result.cache.memory_hits)}})},
             },
             0) +
         "\n";
}

}  // namespace kiln
