#include "runtime/tensor_map.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

CUtensorMapDataType TmaType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::kF16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::kBF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::kI32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case DType::kBool: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

}  // namespace

absl::StatusOr<CUtensorMap> EncodeTensorMap(const CudaDriver& driver, const TensorMapSpec& spec,
                                            CUdeviceptr address, absl::string_view kernel) {
  if (driver.TensorMapEncodeTiled == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel ", kernel, " reads through TMA descriptors, which need cuTensorMapEncodeTiled; this CUDA driver "
        "lacks it (CUDA 12.0 or newer has it)"));
  }
  cuuint64_t dims[3], strides[2];
  cuuint32_t box[3], element_strides[3] = {1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    dims[i] = static_cast<cuuint64_t>(spec.dims[i]);
    box[i] = static_cast<cuuint32_t>(spec.box[i]);
  }
  for (int i = 0; i < 2; ++i) strides[i] = static_cast<cuuint64_t>(spec.strides[i]);
  CUtensorMap map;
  const CUresult result = driver.TensorMapEncodeTiled(
      &map, TmaType(spec.dtype), 3, reinterpret_cast<void*>(address), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    return CudaCall(result, "cuTensorMapEncodeTiled",
                    absl::StrCat("kernel ", kernel, " (dims ", absl::StrJoin(spec.dims, "x"), ", box ",
                                 absl::StrJoin(spec.box, "x"), ")"));
  }
  return map;
}

}  // namespace kiln
