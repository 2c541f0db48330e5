// The soak test: one executable (row, matmul, layout and strided kernels, with
// intermediates in its workspace) runs 10^5 times from 8 threads, each on its
// own inputs. Results must stay bit-identical to each thread's first run and
// match the reference, and neither device nor host memory may grow.
// KILN_SOAK_RUNS=N runs N in total instead (the compute-sanitizer script runs fewer).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "graph/tensor_bytes.h"
#include "tests/differential.h"

namespace kiln {
namespace {

constexpr int kThreads = 8;
constexpr int kCheckEvery = 1000;   // runs between bitwise checks of the outputs
constexpr int kHostEvery = 5000;    // runs between RunOnHost calls (they allocate and free)

class SoakGpuTest : public SharedDeviceTest {};

int RunCount() {
  const char* text = std::getenv("KILN_SOAK_RUNS");
  int runs = 100000;
  if (text != nullptr && (!absl::SimpleAtoi(text, &runs) || runs < kThreads)) {
    ADD_FAILURE() << "KILN_SOAK_RUNS=\"" << text << "\" is not a count of at least " << kThreads;
    return 0;
  }
  return runs;
}

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

int64_t FreeDeviceBytes(const Device& device) {
  size_t free = 0, total = 0;
  EXPECT_EQ(device.driver().MemGetInfo(&free, &total), CUDA_SUCCESS);
  return static_cast<int64_t>(free);
}

Graph SoakGraph() {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {96, 320});
  Value w = b.Input("w", DType::kBF16, {320, 64});
  Value bias = b.Input("bias", DType::kBF16, {64});
  Value e = Exp(x - ReduceMax(x, {1}, true));
  Value softmax = (e / ReduceSum(e, {1}, true)).Named("softmax");
  Value m = Relu(Matmul(softmax, w) + bias).Named("m");
  return *b.Build({Transpose(m, {1, 0}).Named("t"), ReduceSum(m, {0}).Named("columns")});
}

// One thread's inputs on the device, the outputs it writes, and what they held first.
struct Worker {
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> reference;
  std::vector<DeviceBuffer> in_buffers, out_buffers;
  std::vector<CUdeviceptr> in_ptrs, out_ptrs;
  std::vector<HostTensor> first;
};

absl::StatusOr<std::vector<HostTensor>> ReadOutputs(const Graph& graph, const Worker& worker) {
  std::vector<HostTensor> outputs;
  for (size_t j = 0; j < worker.out_buffers.size(); ++j) {
    const Node& node = graph.node(graph.outputs()[j]);
    std::string bytes(worker.out_buffers[j].size(), '\0');
    if (absl::Status s = worker.out_buffers[j].CopyToHost(bytes.data(), worker.out_buffers[j].size()); !s.ok()) {
      return s;
    }
    outputs.push_back(DecodeTensor(bytes, node.dtype, node.shape));
  }
  return outputs;
}

// Empty, or what went wrong.
std::string Prepare(const Graph& graph, const Device& device, int index, Worker& worker) {
  if (absl::Status s = device.Activate(); !s.ok()) return std::string(s.message());
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Node& node = graph.node(graph.inputs()[i]);
    worker.inputs.push_back(RandomTensor(node.dtype, node.shape, 100 * index + i));
    const std::string bytes = EncodeTensor(worker.inputs.back());
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!buffer.ok()) return std::string(buffer.status().message());
    worker.in_ptrs.push_back(buffer->ptr());
    worker.in_buffers.push_back(*std::move(buffer));
  }
  for (NodeId o : graph.outputs()) {
    const Node& node = graph.node(o);
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(NumElements(node.shape) * DTypeSize(node.dtype));
    if (!buffer.ok()) return std::string(buffer.status().message());
    worker.out_ptrs.push_back(buffer->ptr());
    worker.out_buffers.push_back(*std::move(buffer));
  }
  absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(graph, worker.inputs);
  if (!reference.ok()) return std::string(reference.status().message());
  worker.reference = *std::move(reference);
  return "";
}

// Runs `runs` times, checking the outputs every kCheckEvery runs. Empty, or the first failure.
std::string Soak(const Graph& graph, const Device& device, Executable& exe, Worker& worker, int runs) {
  if (absl::Status s = device.Activate(); !s.ok()) return std::string(s.message());
  for (int run = 1; run <= runs; ++run) {
    if (absl::Status s = exe.Run(worker.in_ptrs, worker.out_ptrs); !s.ok()) {
      return absl::StrCat("run ", run, ": ", s.message());
    }
    if (run % kCheckEvery != 0 && run != runs) continue;
    absl::StatusOr<std::vector<HostTensor>> outputs = ReadOutputs(graph, worker);
    if (!outputs.ok()) return absl::StrCat("run ", run, ": ", outputs.status().message());
    if (worker.first.empty()) {
      for (size_t j = 0; j < outputs->size(); ++j) {
        const double error = RelativeError((*outputs)[j], worker.reference[j]);
        if (!(error < CheckTolerance(graph))) return absl::StrCat("output ", j, " relative error ", error);
      }
      worker.first = *std::move(outputs);
    } else {
      for (size_t j = 0; j < outputs->size(); ++j) {
        if ((*outputs)[j].data != worker.first[j].data) {
          return absl::StrCat("run ", run, ": output ", j, " differs from the first run's");
        }
      }
    }
    if (run % kHostEvery == 0) {
      absl::StatusOr<std::vector<HostTensor>> on_host = exe.RunOnHost(worker.inputs);
      if (!on_host.ok()) return absl::StrCat("RunOnHost at run ", run, ": ", on_host.status().message());
      for (size_t j = 0; j < on_host->size(); ++j) {
        if ((*on_host)[j].data != worker.first[j].data) return absl::StrCat("RunOnHost at run ", run, " differs");
      }
    }
  }
  return "";
}

// Runs `body(index)` on kThreads threads and reports what each returned.
template <typename Body>
void OnEveryThread(const Body& body) {
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { failures[t] = body(t); });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST_F(SoakGpuTest, OneExecutableRunsAHundredThousandTimesFromEightThreads) {
  const int runs = RunCount();
  const Graph graph = SoakGraph();
  KernelCache cache({.use_disk = false});
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, device(), cache, {.fuse = true});
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->plan().kernels.size(), 4u);  // row, matmul, transpose, strided reduction

  std::vector<Worker> workers(kThreads);
  OnEveryThread([&](int t) { return Prepare(graph, device(), t, workers[t]); });
  // Warm-up: the workspace, the first results, every allocation a run makes.
  constexpr int kWarmup = kCheckEvery;
  OnEveryThread([&](int t) { return Soak(graph, device(), **exe, workers[t], kWarmup); });
  ASSERT_TRUE(device().Synchronize().ok());
  const int64_t device_before = FreeDeviceBytes(device());
  const int64_t host_before = ResidentBytes();

  const int per_thread = runs / kThreads;
  OnEveryThread([&](int t) { return Soak(graph, device(), **exe, workers[t], per_thread); });
  ASSERT_TRUE(device().Synchronize().ok());
  const int64_t device_after = FreeDeviceBytes(device());
  const int64_t host_after = ResidentBytes();
  std::printf("soak: %d runs from %d threads after %d warm-up runs; free device memory %lld -> %lld bytes, "
              "resident host memory %lld -> %lld bytes\n",
              per_thread * kThreads, kThreads, kWarmup * kThreads, static_cast<long long>(device_before),
              static_cast<long long>(device_after), static_cast<long long>(host_before),
              static_cast<long long>(host_after));
  // Allowances for the driver's and the allocator's own bookkeeping.
  EXPECT_LE(device_before - device_after, int64_t{16} << 20);
  EXPECT_LE(host_after - host_before, int64_t{64} << 20);
}

}  // namespace
}  // namespace kiln
