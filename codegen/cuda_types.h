// How kiln's dtypes look in generated CUDA: storage types in memory, value
// types in registers, and the conversions between them.
//
//   StorageType(DType::kBF16)           -> "unsigned short"
//   LoadConversion(DType::kBF16, "p[i]") -> "kiln_bf16_to_f32(p[i])"
//   FloatLiteral(0.5)                   -> "0x1p-1f"
#ifndef KILN_CODEGEN_CUDA_TYPES_H_
#define KILN_CODEGEN_CUDA_TYPES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "graph/dtype.h"

namespace kiln {

std::string StorageType(DType dtype);
// f32, f16 and bf16 values are float in registers; i32 int; bool bool.
std::string ValueType(DType dtype);
// A stored element (an expression of StorageType) as a register value.
std::string LoadConversion(DType dtype, absl::string_view stored);
// A register value as the StorageType to store.
std::string StoreConversion(DType dtype, absl::string_view value);
// An exact literal of the value type: hex floats for floats, so a constant
// means in CUDA exactly what it means in the reference interpreter.
std::string Literal(DType dtype, double value);

}  // namespace kiln

#endif  // KILN_CODEGEN_CUDA_TYPES_H_
