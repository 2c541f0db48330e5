#include "codegen/cuda_types.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace kiln {

std::string StorageType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "float";
    case DType::kF16:
    case DType::kBF16: return "unsigned short";
    case DType::kBool: return "unsigned char";
    case DType::kI32: return "int";
  }
  return "?";
}

std::string ValueType(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "bool";
    case DType::kI32: return "int";
    default: return "float";
  }
}

std::string LoadConversion(DType dtype, absl::string_view stored) {
  switch (dtype) {
    case DType::kF16: return absl::StrCat("kiln_f16_to_f32(", stored, ")");
    case DType::kBF16: return absl::StrCat("kiln_bf16_to_f32(", stored, ")");
    case DType::kBool: return absl::StrCat("(", stored, " != 0)");
    default: return std::string(stored);
  }
}

std::string StoreConversion(DType dtype, absl::string_view value) {
  switch (dtype) {
    case DType::kF16: return absl::StrCat("kiln_f32_to_f16(", value, ")");
    case DType::kBF16: return absl::StrCat("kiln_f32_to_bf16(", value, ")");
    case DType::kBool: return absl::StrCat("static_cast<unsigned char>(", value, ")");
    default: return std::string(value);
  }
}

std::string Literal(DType dtype, double value) {
  if (dtype == DType::kBool) return value != 0 ? "true" : "false";
  if (dtype == DType::kI32) return absl::StrCat(static_cast<long long>(value));
  const float f = static_cast<float>(value);
  if (std::isnan(f)) return "KILN_NAN";
  if (std::isinf(f)) return f > 0 ? "KILN_INF" : "(-KILN_INF)";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%af", static_cast<double>(f));
  return buffer;
}

}  // namespace kiln
