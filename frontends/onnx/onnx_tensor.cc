#include "frontends/onnx/onnx_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

using onnx::TensorProto;

constexpr double kInt64Limit = 9007199254740992.0;  // 2^53

int ElementSize(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT: return 4;
    case TensorProto::FLOAT16: return 2;
    case TensorProto::BFLOAT16: return 2;
    case TensorProto::DOUBLE: return 8;
    case TensorProto::INT32: return 4;
    case TensorProto::INT64: return 8;
    case TensorProto::BOOL: return 1;
    case TensorProto::INT8: return 1;
    case TensorProto::UINT8: return 1;
    default: return 0;
  }
}

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

double FromRaw(int32_t type, const char* p) {
  switch (type) {
    case TensorProto::FLOAT: return Load<float>(p);
    case TensorProto::FLOAT16: return HalfBitsToFloat(Load<uint16_t>(p));
    case TensorProto::BFLOAT16: return BF16BitsToFloat(Load<uint16_t>(p));
    case TensorProto::DOUBLE: return Load<double>(p);
    case TensorProto::INT32: return Load<int32_t>(p);
    case TensorProto::INT64: return std::clamp(static_cast<double>(Load<int64_t>(p)), -kInt64Limit, kInt64Limit);
    case TensorProto::BOOL: return Load<uint8_t>(p) != 0;
    case TensorProto::INT8: return Load<int8_t>(p);
    case TensorProto::UINT8: return Load<uint8_t>(p);
    default: return 0;
  }
}

// int32_data holds FLOAT16 and BFLOAT16 as their bit patterns, and the small
// integer types and BOOL as values.
double FromInt32Field(int32_t type, int32_t v) {
  if (type == TensorProto::FLOAT16) return HalfBitsToFloat(static_cast<uint16_t>(v));
  if (type == TensorProto::BFLOAT16) return BF16BitsToFloat(static_cast<uint16_t>(v));
  if (type == TensorProto::BOOL) return v != 0;
  return v;
}

}  // namespace

std::string OnnxTypeName(int32_t type) {
  if (TensorProto::DataType_IsValid(type)) return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(type));
  return absl::StrCat("type ", type);
}

absl::StatusOr<DType> KilnDTypeOf(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT: return DType::kF32;
    case TensorProto::FLOAT16: return DType::kF16;
    case TensorProto::BFLOAT16: return DType::kBF16;
    case TensorProto::BOOL: return DType::kBool;
    case TensorProto::INT32:
    case TensorProto::INT64: return DType::kI32;
    default:
      return absl::UnimplementedError(absl::StrCat("element type ", OnnxTypeName(type), " is not supported"));
  }
}

double RoundToOnnxType(double value, int32_t type) {
  switch (type) {
    case TensorProto::DOUBLE: return value;
    case TensorProto::INT64:
      return std::isnan(value) ? 0.0 : std::trunc(std::clamp(value, -kInt64Limit, kInt64Limit));
    case TensorProto::INT8: return std::trunc(std::clamp(value, -128.0, 127.0));
    case TensorProto::UINT8: return std::trunc(std::clamp(value, 0.0, 255.0));
    default: {
      absl::StatusOr<DType> dtype = KilnDTypeOf(type);
      return dtype.ok() ? RoundToDType(value, *dtype) : value;
    }
  }
}

absl::StatusOr<OnnxTensor> DecodeOnnxTensor(const TensorProto& tensor) {
  OnnxTensor out{.type = tensor.data_type()};
  const std::string label = absl::StrCat("tensor \"", tensor.name(), "\"");
  for (int64_t d : tensor.dims()) out.shape.push_back(d);
  absl::StatusOr<int64_t> count = CheckedNumElements(out.shape);
  if (!count.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": ", count.status().message()));
  const int size = ElementSize(out.type);
  if (size == 0) {
    return absl::UnimplementedError(absl::StrCat(label, ": element type ", OnnxTypeName(out.type), " is not supported"));
  }
  if (tensor.data_location() == TensorProto::EXTERNAL && tensor.raw_data().empty() && *count > 0) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": its external data was not loaded"));
  }
  auto wrong_count = [&](int64_t got) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": ", OnnxTypeName(out.type), " shape [", absl::StrJoin(out.shape, ","), "] needs ",
                     *count, " elements; it holds ", got));
  };
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    if (static_cast<int64_t>(raw.size()) != *count * size) return wrong_count(static_cast<int64_t>(raw.size()) / size);
    out.data.reserve(*count);
    for (int64_t i = 0; i < *count; ++i) out.data.push_back(FromRaw(out.type, raw.data() + i * size));
    return out;
  }
  switch (out.type) {
    case TensorProto::FLOAT:
      if (tensor.float_data_size() != *count) return wrong_count(tensor.float_data_size());
      out.data.assign(tensor.float_data().begin(), tensor.float_data().end());
      break;
    case TensorProto::DOUBLE:
      if (tensor.double_data_size() != *count) return wrong_count(tensor.double_data_size());
      out.data.assign(tensor.double_data().begin(), tensor.double_data().end());
      break;
    case TensorProto::INT64:
      if (tensor.int64_data_size() != *count) return wrong_count(tensor.int64_data_size());
      for (int64_t v : tensor.int64_data()) out.data.push_back(std::clamp(static_cast<double>(v), -kInt64Limit, kInt64Limit));
      break;
    default:
      if (tensor.int32_data_size() != *count) return wrong_count(tensor.int32_data_size());
      for (int32_t v : tensor.int32_data()) out.data.push_back(FromInt32Field(out.type, v));
      break;
  }
  return out;
}

}  // namespace kiln
