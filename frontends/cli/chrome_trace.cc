#include "frontends/cli/chrome_trace.h"

#include "graph/json.h"

namespace kiln {

std::string ChromeTraceJson(absl::string_view process_name, const std::vector<TracedKernel>& kernels) {
  std::vector<std::string> events = {
      JsonObject({{"name", JsonString("process_name")},
                  {"ph", JsonString("M")},
                  {"pid", "1"},
                  {"args", JsonObject({{"name", JsonString(process_name)}})}}),
      JsonObject({{"name", JsonString("thread_name")},
                  {"ph", JsonString("M")},
                  {"pid", "1"},
                  {"tid", "1"},
                  {"args", JsonObject({{"name", JsonString("kernels")}})}}),
  };
  for (const TracedKernel& k : kernels) {
    std::vector<std::string> nodes;
    for (const std::string& node : k.nodes) nodes.push_back(JsonString(node));
    const double us = k.end_us - k.start_us;
    events.push_back(JsonObject({
        {"name", JsonString(k.name)},
        {"cat", JsonString("kernel")},
        {"ph", JsonString("X")},
        {"pid", "1"},
        {"tid", "1"},
        {"ts", JsonFixed(k.start_us, 3)},
        {"dur", JsonFixed(us, 3)},
        {"args", JsonObject({{"strategy", JsonString(k.strategy)},
                             {"nodes", JsonArray(nodes)},
                             {"bytes", JsonInt(k.bytes)},
                             {"gbps", JsonFixed(us > 0 ? static_cast<double>(k.bytes) / (us * 1e3) : 0.0, 1)}})},
    }));
  }
  return JsonObjectLines({{"displayTimeUnit", JsonString("ns")}, {"traceEvents", JsonArrayLines(events, 2)}}, 0) +
         "\n";
}

}  // namespace kiln
