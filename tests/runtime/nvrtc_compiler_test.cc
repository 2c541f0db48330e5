#include "runtime/nvrtc_compiler.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/kernel_source.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::ClusterIdsSource;
using runtime_testing::SaxpySource;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

bool IsElf(const std::string& image) {
  return image.size() > 4 && image.compare(0, 4,
                                           "\x7f"
                                           "ELF") == 0;
}

TEST(NvrtcOptionsTest, RealArchitectureAndExactMath) {
  EXPECT_THAT(
      NvrtcOptions("sm_90"),
      ElementsAre("--gpu-architecture=sm_90", "--std=c++17", "--device-as-default-execution-space",
                  "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--fmad=true"));
}

TEST(NvrtcVersionTest, IsMajorDotMinor) {
  EXPECT_THAT(NvrtcVersion(), MatchesRegex("[0-9]+\\.[0-9]+"));
}

TEST(ValidateArchTest, AcceptsRealArchitectures) {
  for (const char* arch : {"sm_80", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120a"}) {
    EXPECT_TRUE(ValidateArch(arch).ok()) << arch;
  }
}

TEST(ValidateArchTest, RefusesVirtualAndMalformedArchitectures) {
  for (const char* arch : {"compute_90", "sm_9", "sm_", "sm_90b", "sm_1000", "90", "", "sm_9a0"}) {
    absl::Status s = ValidateArch(arch);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << arch;
  }
  EXPECT_EQ(ValidateArch("compute_90").message(),
            "unsupported GPU architecture \"compute_90\": expected a real architecture such as "
            "sm_90");
  EXPECT_EQ(ValidateArch("sm_90\n\"").message(),
            "unsupported GPU architecture \"sm_90\\n\\\"\": expected a real architecture such "
            "as sm_90");
}

TEST(CompileToCubinTest, SaxpyBecomesAnElfCubin) {
  absl::StatusOr<std::string> cubin = CompileToCubin(SaxpySource(), "sm_90");
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_TRUE(IsElf(*cubin));
  // The extern "C" name survives unmangled in the symbol table.
  EXPECT_THAT(*cubin, HasSubstr("saxpy"));
}

TEST(CompileToCubinTest, ArchitectureChangesTheBinary) {
  absl::StatusOr<std::string> sm90 = CompileToCubin(SaxpySource(), "sm_90");
  absl::StatusOr<std::string> sm80 = CompileToCubin(SaxpySource(), "sm_80");
  ASSERT_TRUE(sm90.ok()) << sm90.status();
  ASSERT_TRUE(sm80.ok()) << sm80.status();
  EXPECT_TRUE(IsElf(*sm80));
  EXPECT_NE(*sm90, *sm80);
}

TEST(CompileToCubinTest, ClusterKernelCompilesForHopper) {
  absl::StatusOr<std::string> cubin = CompileToCubin(ClusterIdsSource(), "sm_90");
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_TRUE(IsElf(*cubin));
}

TEST(CompileToCubinTest, SyntaxErrorCarriesLogAndNumberedSource) {
  const KernelSource broken{.code =
                                "extern \"C\" __global__ void broken(float* y) {\n"
                                "  int i = threadIdx.x;\n"
                                "  y[i] = undefined_name;\n"
                                "}\n",
                            .name_for_errors = "broken"};
  absl::StatusOr<std::string> cubin = CompileToCubin(broken, "sm_90");
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(cubin.status().message());
  EXPECT_THAT(message, ::testing::StartsWith("NVRTC could not compile kernel broken for sm_90:\n"));
  EXPECT_THAT(message,
              HasSubstr("broken.cu(3): error: identifier \"undefined_name\" is undefined"));
  EXPECT_THAT(message, HasSubstr("\nsource:\n"
                                 "   1 | extern \"C\" __global__ void broken(float* y) {\n"
                                 "   2 |   int i = threadIdx.x;\n"
                                 "   3 |   y[i] = undefined_name;\n"
                                 "   4 | }\n"));
}

TEST(CompileToCubinTest, DivisionIsIeeeWithoutFlushToZero) {
  // IEEE division keeps a slow-path routine in the binary whose name says
  // "round to nearest, no flush to zero"; --use_fast_math or --prec-div=false
  // drop it and --ftz=true renames it. The kernel divides two run-time values
  // so nothing folds.
  const KernelSource div{.code =
                             "extern \"C\" __global__ void div(float* y, const float* x) {\n"
                             "  y[threadIdx.x] = x[threadIdx.x] / y[threadIdx.x];\n"
                             "}\n",
                         .name_for_errors = "div"};
  absl::StatusOr<std::string> cubin = CompileToCubin(div, "sm_90");
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_THAT(*cubin, HasSubstr("div_rn_noftz_f32"));
}

TEST(CompileToCubinTest, BadArchitectureIsRefusedBeforeCompiling) {
  absl::StatusOr<std::string> cubin = CompileToCubin(SaxpySource(), "compute_90");
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln
