#include "graph/tensor_bytes.h"

#include <cstring>

#include "graph/parallel_for.h"

namespace kiln {
namespace {

// Elements per parallel chunk: kiln run encodes and decodes tensors of up to 2^30
// elements a few times each, which on one thread takes seconds per GB.
constexpr int64_t kGrain = 1 << 16;

template <typename T>
void Put(std::string& out, size_t i, T value) {
  std::memcpy(out.data() + i * sizeof(T), &value, sizeof(T));
}

template <typename T>
T Get(absl::string_view bytes, size_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

std::string EncodeTensor(const HostTensor& tensor) {
  const size_t n = tensor.data.size();
  std::string out(n * DTypeSize(tensor.dtype), '\0');
  ParallelFor(static_cast<int64_t>(n), kGrain, [&](int64_t begin, int64_t end) {
    for (size_t i = begin; i < static_cast<size_t>(end); ++i) {
      const double v = tensor.data[i];
      switch (tensor.dtype) {
        case DType::kF32: Put(out, i, static_cast<float>(v)); break;
        case DType::kF16: Put(out, i, FloatToHalfBits(static_cast<float>(v))); break;
        case DType::kBF16: Put(out, i, FloatToBF16Bits(static_cast<float>(v))); break;
        case DType::kI32: Put(out, i, static_cast<int32_t>(v)); break;
        case DType::kBool: Put(out, i, static_cast<uint8_t>(v != 0)); break;
      }
    }
  });
  return out;
}

HostTensor DecodeTensor(absl::string_view bytes, DType dtype, const Dims& shape) {
  HostTensor tensor{.dtype = dtype, .shape = shape};
  const size_t n = bytes.size() / DTypeSize(dtype);
  tensor.data.resize(n);
  ParallelFor(static_cast<int64_t>(n), kGrain, [&](int64_t begin, int64_t end) {
    for (size_t i = begin; i < static_cast<size_t>(end); ++i) {
      switch (dtype) {
        case DType::kF32: tensor.data[i] = Get<float>(bytes, i); break;
        case DType::kF16: tensor.data[i] = HalfBitsToFloat(Get<uint16_t>(bytes, i)); break;
        case DType::kBF16: tensor.data[i] = BF16BitsToFloat(Get<uint16_t>(bytes, i)); break;
        case DType::kI32: tensor.data[i] = Get<int32_t>(bytes, i); break;
        case DType::kBool: tensor.data[i] = Get<uint8_t>(bytes, i) != 0; break;
      }
    }
  });
  return tensor;
}

}  // namespace kiln
