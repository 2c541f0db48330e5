#include "frontends/cli/resources_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/kernel_codegen.h"
#include "fusion/plan_report.h"
#include "graph/int_math.h"
#include "graph/json.h"

namespace kiln {
namespace {

constexpr absl::string_view kRowFormat = "%-18s %4s %8s %8s %10s %8s %14s %12s %10s  %-24s %6s\n";

std::string LimitsJson(const Occupancy& occupancy) {
  std::vector<std::string> names;
  for (OccupancyLimit limit : occupancy.limits) names.push_back(JsonString(OccupancyLimitName(limit)));
  return JsonArray(names);
}

std::string Bytes(int64_t bytes) { return absl::StrCat(GroupedNumber(bytes), " B"); }

}  // namespace

absl::StatusOr<ResourceRow> CompileResourceRow(const GeneratedKernel& kernel, const DeviceLimits& limits) {
  absl::StatusOr<KernelResources> resources = CompiledResources({kernel.Source(), kernel.name}, limits.Arch());
  if (!resources.ok()) return resources.status();
  ResourceRow row{
      .kernel = kernel.name, .ask = kernel.min_blocks_per_sm, .launch = kernel.launch, .resources = *resources};
  row.occupancy = BlocksPerSm({.threads = static_cast<int>(kernel.launch.block),
                               .registers_per_thread = resources->registers,
                               .shared_bytes = resources->static_shared_bytes + kernel.launch.shared_bytes},
                              limits);
  if (row.occupancy.blocks > 0) {
    row.waves = static_cast<double>(kernel.launch.grid) / (row.occupancy.blocks * int64_t{limits.sm_count});
  }
  if (row.occupancy.blocks > 0 && kernel.launch.cluster > 1) {
    row.resident_clusters = limits.ResidentClusters(static_cast<int>(kernel.launch.cluster), row.occupancy.blocks);
    const int64_t clusters = kernel.launch.grid / kernel.launch.cluster;
    row.cluster_waves = row.resident_clusters > 0 ? CeilDiv(clusters, row.resident_clusters) : 0;
  }
  return row;
}

absl::StatusOr<std::vector<ResourceRow>> PlanResources(const Graph& graph, const Plan& plan,
                                                       const DeviceLimits& limits) {
  absl::StatusOr<std::vector<GeneratedKernel>> generated = GeneratePlan(graph, plan, limits);
  if (!generated.ok()) return generated.status();
  std::vector<ResourceRow> rows;
  for (size_t k = 0; k < generated->size(); ++k) {
    const GeneratedKernel& kernel = (*generated)[k];
    absl::StatusOr<ResourceRow> row = CompileResourceRow(kernel, limits);
    if (!row.ok()) return row.status();
    const Kernel& planned = plan.kernels[k];
    row->cluster_size_tuned =
        planned.kind == KernelKind::kRowReduction && planned.row().strategy == RowStrategy::kClusterLooped;
    rows.push_back(*std::move(row));
    // The asks the launch-bound tuner times after the planner's: down to the
    // first that leaves no local memory, as the driver reports it there.
    for (int blocks = kernel.min_blocks_per_sm - 1; blocks >= 1 && rows.back().resources.stack_bytes > 0; --blocks) {
      row = CompileResourceRow(kernel.WithMinBlocks(blocks), limits);
      if (!row.ok()) return row.status();
      row->tuned = true;
      rows.push_back(*std::move(row));
    }
  }
  return rows;
}

std::string ResourcesTable(const std::vector<ResourceRow>& rows, const DeviceLimits& limits) {
  std::string out = absl::StrCat("kernel resources: ptxas's report for ", limits.Arch(),
                                 " through NVRTC, and the occupancy it allows on ", limits.sm_count, " SMs\n");
  absl::StrAppendFormat(&out, kRowFormat, "kernel", "ask", "threads", "cluster", "registers", "stack",
                        "spill st/ld", "shared", "blocks/SM", "limited by", "waves");
  for (const ResourceRow& r : rows) {
    const KernelResources& res = r.resources;
    absl::StrAppendFormat(
        &out, kRowFormat, r.tuned ? "" : r.kernel, r.ask > 0 ? absl::StrCat(r.ask) : "-",
        r.tuned ? "" : absl::StrCat(r.launch.block), r.tuned ? "" : absl::StrCat(r.launch.cluster),
        absl::StrCat(res.registers), Bytes(res.stack_bytes),
        absl::StrCat(res.spill_store_bytes, "/", res.spill_load_bytes, " B"),
        Bytes(res.static_shared_bytes + r.launch.shared_bytes), absl::StrCat(r.occupancy.blocks),
        OccupancyLimitNames(r.occupancy), r.occupancy.blocks > 0 ? absl::StrFormat("%.2f", r.waves) : "-");
  }
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    if (rows[i].tuned || !rows[i + 1].tuned) continue;
    size_t last = i + 1;
    while (last + 1 < rows.size() && rows[last + 1].tuned) ++last;
    absl::StrAppend(&out, rows[i].kernel, " keeps ", rows[i].resources.stack_bytes,
                    " B a thread in local memory at the ", rows[i].ask,
                    " blocks an SM its launch bound asks for: on the GPU the runtime times asks ", rows[i].ask, " to ",
                    rows[last].ask, " and keeps the fastest\n");
  }
  for (const ResourceRow& r : rows) {
    if (r.tuned || r.launch.cluster < 2 || r.occupancy.blocks == 0) continue;
    absl::StrAppend(&out, r.kernel, " runs in clusters of ", r.launch.cluster,
                    " blocks, which share one GPC each, so fewer may fit at once than the SMs' block slots suggest: ",
                    r.resident_clusters == 0 ? "none fits" : absl::StrCat(r.resident_clusters), " at ",
                    r.occupancy.blocks, r.occupancy.blocks == 1 ? " block" : " blocks",
                    " an SM by the counts planning takes");
    if (r.resident_clusters > 0) {
      absl::StrAppend(&out, ", so its ", r.launch.grid / r.launch.cluster, " clusters take ", r.cluster_waves,
                      r.cluster_waves == 1 ? " wave" : " waves");
    }
    absl::StrAppend(&out, "; kiln run counts the GPU's");
    if (r.cluster_size_tuned && r.cluster_waves != 1) {
      absl::StrAppend(&out, ", and as its rows loop over their parts it times halved clusters that save a wave");
    }
    absl::StrAppend(&out, "\n");
  }
  for (const ResourceRow& r : rows) {
    if (r.occupancy.blocks == 0) {
      absl::StrAppend(&out, r.kernel, " cannot launch: one block needs more ", OccupancyLimitNames(r.occupancy),
                      " than an SM has\n");
    }
  }
  return out;
}

std::string ResourcesJson(const std::vector<ResourceRow>& rows) {
  std::vector<std::string> items;
  for (const ResourceRow& r : rows) {
    const KernelResources& res = r.resources;
    const bool cluster = r.launch.cluster > 1 && r.occupancy.blocks > 0;
    items.push_back(JsonObject({
        {"kernel", JsonString(r.kernel)},
        {"launch_bound_blocks", JsonInt(r.ask)},
        {"tuned_ask", JsonBool(r.tuned)},
        {"grid", JsonInt(r.launch.grid)},
        {"threads", JsonInt(r.launch.block)},
        {"cluster", JsonInt(r.launch.cluster)},
        {"registers", JsonInt(res.registers)},
        {"stack_bytes", JsonInt(res.stack_bytes)},
        {"spill_store_bytes", JsonInt(res.spill_store_bytes)},
        {"spill_load_bytes", JsonInt(res.spill_load_bytes)},
        {"static_shared_bytes", JsonInt(res.static_shared_bytes)},
        {"dynamic_shared_bytes", JsonInt(r.launch.shared_bytes)},
        {"blocks_per_sm", JsonInt(r.occupancy.blocks)},
        {"limited_by", LimitsJson(r.occupancy)},
        {"waves", r.occupancy.blocks > 0 ? JsonFixed(r.waves, 3) : "null"},
        {"resident_clusters", cluster ? JsonInt(r.resident_clusters) : "null"},
        {"cluster_waves", r.resident_clusters > 0 ? JsonInt(r.cluster_waves) : "null"},
        {"cluster_size_tuned", JsonBool(r.cluster_size_tuned)},
    }));
  }
  return JsonArrayLines(items, 2);
}

}  // namespace kiln
