// The graph files in bench/graphs/ are exactly what `kiln workload` writes for
// the shapes of docs/design.md: each loads, and equals the builder's graph byte for
// byte. A file is named <workload>_<dims>_<dtype>.textproto.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "frontends/graph_file.h"
#include "frontends/workloads.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBundled[] = {
    "gelu_naive_16384x16384_bf16.textproto",     "gelu_naive_16384x16384_f32.textproto",
    "matmul_relu_4096x4096x4096_f16.textproto",  "matmul_relu_4096x4096x4096_f32.textproto",
    "matmul_relu_8192x8192x8192_bf16.textproto", "row_sum_16384x16384_f32.textproto",
    "row_sum_256x1048576_f32.textproto",         "softmax_naive_16384x4096_f32.textproto",
    "softmax_naive_4096x16384_f32.textproto",    "softmax_naive_512x131072_f32.textproto",
    "softmax_naive_65536x1024_f32.textproto",
};

// bench/graphs/matmul/: the Hopper matmul benchmark (bench/matmul_bench.py).
constexpr const char* kMatmulBundled[] = {
    "matmul_bias_gelu_8192x8192x8192_bf16.textproto", "matmul_relu_128x8192x8192_bf16.textproto",
    "matmul_relu_128x8192x8192_f16.textproto",        "matmul_relu_16384x4096x4096_bf16.textproto",
    "matmul_relu_16384x4096x4096_f16.textproto",      "matmul_relu_256x256x65536_bf16.textproto",
    "matmul_relu_4096x4096x4096_bf16.textproto",
    "matmul_relu_4096x4096x4096_f16.textproto",       "matmul_relu_4096x4096x4096_f32.textproto",
    "matmul_relu_512x512x32768_bf16.textproto",       "matmul_relu_512x512x32768_f32.textproto",
    "matmul_relu_8192x8192x1024_bf16.textproto",      "matmul_relu_8192x8192x1024_f16.textproto",
    "matmul_relu_8192x8192x8192_bf16.textproto",      "matmul_relu_8192x8192x8192_f16.textproto",
};

// bench/graphs/attention/: attention by fusion (bench/attention_bench.py).
constexpr const char* kAttentionBundled[] = {
    "attention_causal_4x16x4096x128_bf16.textproto", "attention_naive_4x16x1024x128_bf16.textproto",
    "attention_naive_4x16x16384x128_bf16.textproto", "attention_naive_4x16x4096x128_bf16.textproto",
    "attention_naive_4x16x4096x64_bf16.textproto",
};

fs::path GraphsDir() {
  const char* source = std::getenv("KILN_SOURCE_DIR");
  return fs::path(source == nullptr ? "." : source) / "bench" / "graphs";
}

// "matmul_relu_8192x8192x8192_bf16.textproto" -> the builder's graph.
absl::StatusOr<Graph> GraphNamedBy(const std::string& file) {
  const std::string stem = fs::path(file).stem().string();
  const size_t dtype_at = stem.rfind('_');
  const size_t dims_at = stem.rfind('_', dtype_at - 1);
  absl::StatusOr<DType> dtype = ParseDType(stem.substr(dtype_at + 1));
  if (!dtype.ok()) return dtype.status();
  Dims dims;
  for (absl::string_view dim : absl::StrSplit(stem.substr(dims_at + 1, dtype_at - dims_at - 1), 'x')) {
    if (!absl::SimpleAtoi(dim, &dims.emplace_back())) {
      return absl::InvalidArgumentError(absl::StrCat("bad dims in ", file));
    }
  }
  return BuildWorkload(stem.substr(0, dims_at), *dtype, dims);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::vector<std::string> GraphFilesIn(const fs::path& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".textproto") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(BundledGraphsTest, ExactlyTheDesignShapesAreBundled) {
  EXPECT_EQ(GraphFilesIn(GraphsDir()), std::vector<std::string>(std::begin(kBundled), std::end(kBundled)));
  EXPECT_EQ(GraphFilesIn(GraphsDir() / "matmul"),
            std::vector<std::string>(std::begin(kMatmulBundled), std::end(kMatmulBundled)));
  EXPECT_EQ(GraphFilesIn(GraphsDir() / "attention"),
            std::vector<std::string>(std::begin(kAttentionBundled), std::end(kAttentionBundled)));
}

TEST(BundledGraphsTest, EachFileIsTheBuildersGraph) {
  std::vector<fs::path> paths;
  for (const char* file : kBundled) paths.push_back(GraphsDir() / file);
  for (const char* file : kMatmulBundled) paths.push_back(GraphsDir() / "matmul" / file);
  for (const char* file : kAttentionBundled) paths.push_back(GraphsDir() / "attention" / file);
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<Graph> expected = GraphNamedBy(path.filename().string());
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<Graph> loaded = LoadGraphFile(path.string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(SerializeGraphBinary(*loaded), SerializeGraphBinary(*expected));
    EXPECT_EQ(ReadFile(path), SerializeGraphText(*expected));
  }
}

}  // namespace
}  // namespace kiln
