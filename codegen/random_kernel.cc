#include "codegen/random_kernel.h"

#include "absl/strings/str_cat.h"
#include "codegen/device_library.h"

namespace kiln {
namespace {

// The device library's draw for each dtype.
const char* DrawType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "KilnDrawF32";
    case DType::kF16: return "KilnDrawF16";
    case DType::kBF16: return "KilnDrawBF16";
    case DType::kI32: return "KilnDrawI32";
    case DType::kBool: return "KilnDrawBool";
  }
  return "KilnDrawF32";
}

}  // namespace

RandomKernels RandomFillKernels(DType dtype) {
  RandomKernels k{.fill = absl::StrCat("kiln_random_", DTypeName(dtype))};
  k.finish = absl::StrCat(k.fill, "_finish");
  const std::string draw = DrawType(dtype);
  const std::string storage = absl::StrCat(draw, "::Storage");
  k.source = absl::StrCat(DeviceLibrarySource(), "\nextern \"C\" __global__ void ", k.fill, "(", storage,
                          "* out, unsigned long long count, unsigned long long seed, unsigned* nonzero) {\n",
                          "  kiln_random_fill<", draw, ">(out, count, seed, nonzero);\n}\n",
                          "extern \"C\" __global__ void ", k.finish, "(", storage,
                          "* out, const unsigned* nonzero) {\n  kiln_random_fill_finish<", draw,
                          ">(out, nonzero);\n}\n");
  return k;
}

}  // namespace kiln
