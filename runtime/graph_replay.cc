#include "runtime/graph_replay.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kiln {

GraphReplay::GraphReplay() {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok() || !(*driver)->HasGraphs()) {
    enabled_ = false;
    stats_.off_reason = driver.ok() ? "the CUDA driver has no graph API" : std::string(driver.status().message());
    return;
  }
  driver_ = *driver;
}

GraphReplay::~GraphReplay() {
  for (Entry& entry : entries_) {
    if (entry.exec != nullptr) driver_->GraphExecDestroy(entry.exec);
  }
}

void GraphReplay::TurnOff(const absl::Status& why) {
  enabled_ = false;
  stats_.off_reason = absl::StrCat("capturing a CUDA graph failed: ", why.message());
}

CUgraphExec GraphReplay::TakeLeastRecentGraph() {
  const size_t held =
      std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.exec != nullptr; });
  if (held < kMaxGraphs) return nullptr;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->exec != nullptr) return std::exchange(it->exec, nullptr);
  }
  return nullptr;
}

absl::StatusOr<CUgraphExec> GraphReplay::Capture(absl::FunctionRef<absl::Status(CUstream)> launch,
                                                 CUgraphExec reuse) {
  // `reuse` is this call's to keep or destroy, whatever happens.
  auto drop_reuse = [&] {
    if (reuse != nullptr) driver_->GraphExecDestroy(std::exchange(reuse, nullptr));
  };
  if (!capture_stream_.has_value()) {
    absl::StatusOr<Stream> stream = Stream::Create(Stream::Ordering::kIndependent);
    if (!stream.ok()) {
      drop_reuse();
      return stream.status();
    }
    capture_stream_ = *std::move(stream);
  }
  const CUstream stream = capture_stream_->get();
  // Thread-local mode: other threads' allocations and copies, legal while
  // this one captures, do not invalidate the capture.
  if (absl::Status s = CudaCall(driver_->StreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                                "cuStreamBeginCapture", "");
      !s.ok()) {
    drop_reuse();
    return s;
  }
  const absl::Status launched = launch(stream);
  CUgraph graph = nullptr;
  // Ends the capture even when a launch failed, so the stream is usable again.
  const CUresult ended = driver_->StreamEndCapture(stream, &graph);
  if (!launched.ok() || ended != CUDA_SUCCESS) {
    if (graph != nullptr) driver_->GraphDestroy(graph);
    drop_reuse();
    return launched.ok() ? CudaCall(ended, "cuStreamEndCapture", "") : launched;
  }
  CUgraphExec exec = nullptr;
  if (reuse != nullptr) {
    CUgraphExecUpdateResultInfo info{};
    if (driver_->GraphExecUpdate(reuse, graph, &info) == CUDA_SUCCESS) {
      exec = std::exchange(reuse, nullptr);
      ++stats_.updates;
    } else {
      drop_reuse();
    }
  }
  CUresult instantiated = CUDA_SUCCESS;
  if (exec == nullptr) instantiated = driver_->GraphInstantiate(&exec, graph, 0);
  driver_->GraphDestroy(graph);  // the instantiated graph keeps what it needs
  if (absl::Status s = CudaCall(instantiated, "cuGraphInstantiate", ""); !s.ok()) return s;
  ++stats_.captures;
  return exec;
}

absl::Status GraphReplay::Run(absl::Span<const CUdeviceptr> addresses, CUstream stream,
                              absl::FunctionRef<absl::Status(CUstream)> launch) {
  if (!enabled_) {
    ++stats_.plain_runs;
    return launch(stream);
  }
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return std::equal(e.addresses.begin(), e.addresses.end(), addresses.begin(), addresses.end());
  });
  if (found == entries_.end()) {
    // First sight: remember the addresses, launch plainly.
    if (entries_.size() == 2 * kMaxGraphs) {
      if (entries_.back().exec != nullptr) driver_->GraphExecDestroy(entries_.back().exec);
      entries_.pop_back();
    }
    entries_.push_front({.addresses = std::vector<CUdeviceptr>(addresses.begin(), addresses.end())});
    ++stats_.plain_runs;
    return launch(stream);
  }
  entries_.splice(entries_.begin(), entries_, found);  // now the most recently used
  Entry& entry = entries_.front();
  const bool replay = entry.exec != nullptr;
  if (!replay) {
    absl::StatusOr<CUgraphExec> exec = Capture(launch, TakeLeastRecentGraph());
    if (!exec.ok()) {
      TurnOff(exec.status());
      ++stats_.plain_runs;
      return launch(stream);
    }
    entry.exec = *exec;
  }
  if (absl::Status s = CudaCall(driver_->GraphLaunch(entry.exec, stream), "cuGraphLaunch", ""); !s.ok()) return s;
  if (replay) ++stats_.replays;
  return absl::OkStatus();
}

}  // namespace kiln
