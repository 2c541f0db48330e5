// A plan's launches replayed as a CUDA graph. The first Run on a set of
// device addresses launches the kernels one by one (a one-off run, such as
// RunOnHost on fresh buffers, never pays for a capture); the second captures
// those launches once as a graph (cuStreamBeginCapture on a private stream,
// cuStreamEndCapture, cuGraphInstantiate) and every later Run on the same
// addresses is one cuGraphLaunch. A graph holds the kernel parameters it was
// captured with, so the addresses are its key: other addresses get a graph
// of their own, up to kMaxGraphs of them, after which the least recently used
// one is updated in place (cuGraphExecUpdate) or, failing that, replaced.
//
//   GraphReplay graphs;
//   graphs.Run(addresses, stream, [&](CUstream s) { return LaunchAll(s); });
//
// If capturing fails (a driver without graphs, a launch that cannot be
// captured), replay stays off for good and every run launches plainly; the
// reason is kept in stats(). Not thread-safe: the owner serializes calls.
#ifndef KILN_RUNTIME_GRAPH_REPLAY_H_
#define KILN_RUNTIME_GRAPH_REPLAY_H_

#include <cuda.h>

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/cuda_driver.h"
#include "runtime/stream.h"

namespace kiln {

// How a GraphReplay's runs went.
struct GraphReplayStats {
  int64_t plain_runs = 0;  // launched kernel by kernel
  int64_t captures = 0;    // graphs captured (each then launched)
  int64_t updates = 0;     // of those, instantiated graphs updated in place rather than built anew
  int64_t replays = 0;     // runs that were one cuGraphLaunch of a graph captured earlier
  std::string off_reason;  // why replay is off; empty while it is on
};

class GraphReplay {
 public:
  // Graphs kept instantiated at once; the addresses seen, at most twice this.
  static constexpr size_t kMaxGraphs = 8;

  // Off, with the reason in stats(), where the driver has no graph API.
  GraphReplay();
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;
  ~GraphReplay();

  // Runs the launches `launch` makes on a stream, bound to `addresses` (every
  // device address they use), on `stream`.
  absl::Status Run(absl::Span<const CUdeviceptr> addresses, CUstream stream,
                   absl::FunctionRef<absl::Status(CUstream)> launch);

  const GraphReplayStats& stats() const { return stats_; }

 private:
  struct Entry {
    std::vector<CUdeviceptr> addresses;
    CUgraphExec exec = nullptr;  // null until these addresses are seen a second time
  };
  // A graph of `launch`'s launches, instantiated, or `reuse` updated to it.
  absl::StatusOr<CUgraphExec> Capture(absl::FunctionRef<absl::Status(CUstream)> launch, CUgraphExec reuse);
  // An instantiated graph taken from the least recently used entry holding
  // one, when kMaxGraphs are held; else null.
  CUgraphExec TakeLeastRecentGraph();
  void TurnOff(const absl::Status& why);

  const CudaDriver* driver_ = nullptr;
  bool enabled_ = true;
  std::list<Entry> entries_;  // most recently used first
  std::optional<Stream> capture_stream_;
  GraphReplayStats stats_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_GRAPH_REPLAY_H_
