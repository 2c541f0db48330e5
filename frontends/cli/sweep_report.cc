#include "frontends/cli/sweep_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "fusion/plan_report.h"
#include "graph/json.h"

namespace kiln {
namespace {

bool SamePlan(const SweepStep& a, const SweepStep& b) {
  if (a.kernels.size() != b.kernels.size()) return false;
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const SweepKernel& x = a.kernels[k];
    const SweepKernel& y = b.kernels[k];
    if (x.name != y.name || x.strategy != y.strategy || x.threads != y.threads || x.cluster != y.cluster) {
      return false;
    }
  }
  return true;
}

std::string PlanName(const Sweep& sweep) { return sweep.fused ? "fused" : "unfused"; }

// Whether `b`'s kernels hold a different number of blocks an SM than `a`'s,
// or spill where `a`'s do not (or the reverse); `b` has `a`'s plan.
bool OccupancyChanges(const SweepStep& a, const SweepStep& b) {
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const std::optional<SweepResources>& x = a.kernels[k].resources;
    const std::optional<SweepResources>& y = b.kernels[k].resources;
    if (!x.has_value() || !y.has_value()) continue;
    if (x->blocks_per_sm != y->blocks_per_sm || (x->spill_bytes > 0) != (y->spill_bytes > 0)) return true;
  }
  return false;
}

std::string Notes(const SweepStep& step) {
  std::string notes = step.plan_changes ? "plan changes" : step.occupancy_changes ? "occupancy changes" : "";
  if (step.OverBound()) {
    absl::StrAppend(&notes, notes.empty() ? "" : "; ", absl::StrFormat("%.2fx the bound", *step.measured_us / step.roofline_us));
  }
  return notes;
}

std::string KernelLine(const SweepKernel& k) {
  std::string line = absl::StrFormat("    %s: %s, %d threads, cluster %d", k.name, k.strategy, k.threads, k.cluster);
  if (const std::optional<SweepResources>& r = k.resources; r.has_value()) {
    absl::StrAppendFormat(&line, "; %d registers, %s%d %s an SM (%s), %.2f waves", r->registers,
                          r->spill_bytes > 0 ? absl::StrCat("spills ", r->spill_bytes, " B, ") : "", r->blocks_per_sm,
                          r->blocks_per_sm == 1 ? "block" : "blocks", r->limited_by, r->waves);
  }
  return line + "\n";
}

// ---- SVG: a log-log plot, hand-written so that it needs nothing installed.

constexpr double kWidth = 880, kHeight = 520;
constexpr double kLeft = 80, kRight = 200, kTop = 50, kBottom = 60;  // margins; the legend sits right

std::string Xml(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// Maps [lo, hi] (values above 0) onto [from, to] on a log scale.
struct LogAxis {
  double lo, hi, from, to;
  double At(double v) const {
    const double span = std::log10(hi) - std::log10(lo);
    return from + (to - from) * (std::log10(v) - std::log10(lo)) / span;
  }
};

// The decades 10^k inside [lo, hi]; the axis is first widened to whole
// decades so every plot shows at least one tick at each end.
LogAxis Decades(double lo, double hi, double from, double to) {
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi)));
  if (hi <= lo) hi = lo * 10;
  return {lo, hi, from, to};
}

std::string Polyline(const std::vector<std::pair<double, double>>& points, absl::string_view color) {
  std::string out = absl::StrFormat("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
  for (size_t i = 0; i < points.size(); ++i) {
    absl::StrAppendFormat(&out, "%s%.1f,%.1f", i == 0 ? "" : " ", points[i].first, points[i].second);
  }
  return out + "\"/>\n";
}

}  // namespace

void MarkPlanChanges(std::vector<SweepStep>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    steps[i].plan_changes = i > 0 && !SamePlan(steps[i - 1], steps[i]);
    steps[i].occupancy_changes = i > 0 && !steps[i].plan_changes && OccupancyChanges(steps[i - 1], steps[i]);
  }
}

std::string SweepTable(const Sweep& sweep) {
  std::string out = absl::StrFormat("sweep of %s axis %d in %s (%s plan) for %s: %d sizes\n", sweep.input, sweep.axis,
                                    sweep.graph, PlanName(sweep), sweep.target, sweep.steps.size());
  if (sweep.ran) {
    absl::StrAppendFormat(&out, "%12s %8s %18s %12s %12s  %s\n", "size", "kernels", "HBM bytes", "bound us",
                          "measured us", "notes");
  } else {
    absl::StrAppendFormat(&out, "%12s %8s %18s %12s  %s\n", "size", "kernels", "HBM bytes", "bound us", "notes");
  }
  for (size_t i = 0; i < sweep.steps.size(); ++i) {
    const SweepStep& step = sweep.steps[i];
    std::string row = absl::StrFormat("%12d %8d %18s %12.3f", step.size, step.kernels.size(),
                                      GroupedNumber(step.bytes), step.roofline_us);
    if (sweep.ran) absl::StrAppendFormat(&row, " %12.2f", step.measured_us.value_or(NAN));
    const std::string notes = Notes(step);
    absl::StrAppend(&out, row, notes.empty() ? "" : "  ", notes, "\n");
    if (i == 0 || step.plan_changes || step.occupancy_changes) {
      for (const SweepKernel& k : step.kernels) absl::StrAppend(&out, KernelLine(k));
    }
  }
  const auto changes = std::count_if(sweep.steps.begin(), sweep.steps.end(), [](const SweepStep& s) { return s.plan_changes; });
  absl::StrAppendFormat(&out, "plan changes: %d", changes);
  if (sweep.resources) {
    const auto occupancy = std::count_if(sweep.steps.begin(), sweep.steps.end(),
                                         [](const SweepStep& s) { return s.occupancy_changes; });
    absl::StrAppendFormat(&out, "; occupancy changes: %d", occupancy);
  }
  if (sweep.ran) {
    const auto over = std::count_if(sweep.steps.begin(), sweep.steps.end(), [](const SweepStep& s) { return s.OverBound(); });
    absl::StrAppendFormat(&out, "; over %.1fx the bound: %d of %d sizes", kOverBoundFactor, over, sweep.steps.size());
  }
  return out + "\n";
}

std::string SweepJson(const Sweep& sweep) {
  std::vector<std::string> steps;
  for (const SweepStep& step : sweep.steps) {
    std::vector<std::string> kernels;
    for (const SweepKernel& k : step.kernels) {
      JsonMembers members = {{"name", JsonString(k.name)},
                             {"kind", JsonString(k.kind)},
                             {"strategy", JsonString(k.strategy)},
                             {"grid", JsonInt(k.grid)},
                             {"threads", JsonInt(k.threads)},
                             {"cluster", JsonInt(k.cluster)}};
      if (const std::optional<SweepResources>& r = k.resources; r.has_value()) {
        members.insert(members.end(), {{"registers", JsonInt(r->registers)},
                                       {"spill_store_bytes", JsonInt(r->spill_bytes)},
                                       {"blocks_per_sm", JsonInt(r->blocks_per_sm)},
                                       {"limited_by", JsonString(r->limited_by)},
                                       {"waves", JsonFixed(r->waves, 3)}});
      }
      kernels.push_back(JsonObject(members));
    }
    steps.push_back(JsonObject({
        {"size", JsonInt(step.size)},
        {"kernels", JsonArray(kernels)},
        {"bytes", JsonInt(step.bytes)},
        {"roofline_us", JsonFixed(step.roofline_us, 3)},
        {"plan_changes", JsonBool(step.plan_changes)},
        {"occupancy_changes", sweep.resources ? JsonBool(step.occupancy_changes) : "null"},
        {"measured_us", step.measured_us.has_value() ? JsonFixed(*step.measured_us, 3) : "null"},
        {"over_bound", sweep.ran ? JsonBool(step.OverBound()) : "null"},
    }));
  }
  return JsonObjectLines({{"graph", JsonString(sweep.graph)},
                          {"input", JsonString(sweep.input)},
                          {"axis", JsonInt(sweep.axis)},
                          {"plan", JsonString(PlanName(sweep))},
                          {"target", JsonString(sweep.target)},
                          {"ran", JsonBool(sweep.ran)},
                          {"steps", JsonArrayLines(steps, 2)}},
                         0) +
         "\n";
}

std::string SweepSvg(const Sweep& sweep) {
  double size_lo = INFINITY, size_hi = 0, us_lo = INFINITY, us_hi = 0;
  for (const SweepStep& step : sweep.steps) {
    size_lo = std::min(size_lo, static_cast<double>(step.size));
    size_hi = std::max(size_hi, static_cast<double>(step.size));
    for (double us : {step.roofline_us, step.measured_us.value_or(0)}) {
      if (us > 0) us_lo = std::min(us_lo, us), us_hi = std::max(us_hi, us);
    }
  }
  if (!(us_hi > 0)) us_lo = us_hi = 1;  // nothing moves bytes: an empty plot with one decade
  const double plot_right = kWidth - kRight, plot_bottom = kHeight - kBottom;
  const LogAxis x = Decades(size_lo, size_hi, kLeft, plot_right);
  const LogAxis y = Decades(us_lo, us_hi, plot_bottom, kTop);

  std::string out = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"24\" font-size=\"15\">%s: %s axis %d (%s plan, %s)</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft, Xml(sweep.graph), Xml(sweep.input), sweep.axis, PlanName(sweep),
      Xml(sweep.target));
  for (double v = x.lo; v <= x.hi * 1.0001; v *= 10) {
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>\n",
                          x.At(v), kTop, x.At(v), plot_bottom, x.At(v), plot_bottom + 18, v);
  }
  for (double v = y.lo; v <= y.hi * 1.0001; v *= 10) {
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                          kLeft, y.At(v), plot_right, y.At(v), kLeft - 6, y.At(v) + 4, v);
  }
  absl::StrAppendFormat(&out,
                        "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n"
                        "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s axis %d (log scale)</text>\n"
                        "<text x=\"20\" y=\"%.0f\" transform=\"rotate(-90 20 %.0f)\" text-anchor=\"middle\">"
                        "microseconds (log scale)</text>\n",
                        kLeft, kTop, plot_right - kLeft, plot_bottom - kTop, (kLeft + plot_right) / 2,
                        kHeight - 16, Xml(sweep.input), sweep.axis, (kTop + plot_bottom) / 2,
                        (kTop + plot_bottom) / 2);
  for (const SweepStep& step : sweep.steps) {
    if (!step.plan_changes) continue;
    const double at = x.At(static_cast<double>(step.size));
    absl::StrAppendFormat(&out,
                          "<line class=\"plan-change\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                          "stroke=\"#888\" stroke-dasharray=\"4 3\"><title>plan changes at %d: %s</title></line>\n",
                          at, kTop, at, plot_bottom, step.size,
                          Xml(step.kernels.empty() ? "no kernels" : step.kernels.front().strategy));
  }
  std::vector<std::pair<double, double>> bound, measured;
  for (const SweepStep& step : sweep.steps) {
    const double at = x.At(static_cast<double>(step.size));
    if (step.roofline_us > 0) bound.push_back({at, y.At(step.roofline_us)});
    if (step.measured_us.value_or(0) > 0) measured.push_back({at, y.At(*step.measured_us)});
  }
  absl::StrAppend(&out, Polyline(bound, "#1f77b4"));
  if (sweep.ran) absl::StrAppend(&out, Polyline(measured, "#ff7f0e"));
  for (const SweepStep& step : sweep.steps) {
    if (!step.OverBound()) continue;
    absl::StrAppendFormat(&out,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#d62728\"><title>%d: %.2f us, %.2fx the "
                          "bound</title></circle>\n",
                          x.At(static_cast<double>(step.size)), y.At(*step.measured_us), step.size,
                          *step.measured_us, *step.measured_us / step.roofline_us);
  }
  const double legend = plot_right + 16;
  absl::StrAppendFormat(&out,
                        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
                        "<text x=\"%.0f\" y=\"%.0f\">roofline bound</text>\n",
                        legend, kTop + 10, legend + 24, kTop + 10, legend + 30, kTop + 14);
  if (sweep.ran) {
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#ff7f0e\" stroke-width=\"2\"/>"
                          "<text x=\"%.0f\" y=\"%.0f\">measured</text>\n"
                          "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"4\" fill=\"#d62728\"/>"
                          "<text x=\"%.0f\" y=\"%.0f\">over %.1fx the bound</text>\n",
                          legend, kTop + 30, legend + 24, kTop + 30, legend + 30, kTop + 34, legend + 12, kTop + 50,
                          legend + 30, kTop + 54, kOverBoundFactor);
  }
  absl::StrAppendFormat(&out,
                        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>"
                        "<text x=\"%.0f\" y=\"%.0f\">plan changes</text>\n",
                        legend, kTop + 70, legend + 24, kTop + 70, legend + 30, kTop + 74);
  return out + "</svg>\n";
}

}  // namespace kiln
