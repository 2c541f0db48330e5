// NumPy .npy files in and out: how users bring their own tensors to kiln
// and take kiln's results back to NumPy or PyTorch.
//
//   absl::StatusOr<NpyArray> a = ReadNpyFile("x.npy");          // any supported dtype
//   absl::StatusOr<HostTensor> x = NpyToInput(*a, graph.node(id), "x.npy");
//   absl::Status s = WriteNpyFile("out/y.npy", y);
//
// Read: format versions 1 to 3, C order, little- or big-endian float16,
// float32, float64, int32, int64 and bool. An array feeds an input of the
// same shape when its values are exactly values of the input's dtype: float32
// into f32, float16 into f16, any float array into bf16 (NumPy has no bf16)
// when every element is a bf16 value, int64 into i32 when every element fits.
// Nothing is rounded on the way in: a value that would change is an error
// naming the file, the input and the first such element.
// Write: f32, f16, i32 and bool as themselves, bf16 widened to float32 (exact).
#ifndef KILN_FRONTENDS_NPY_H_
#define KILN_FRONTENDS_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"

namespace kiln {

struct NpyArray {
  std::string dtype;  // NumPy's name: "float32", "int64", "bool", ...
  Dims shape;
  std::vector<double> data;  // every element, exactly (int64 beyond 2^53 is refused)
};

absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes);
absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path);

// The array as a tensor for graph input `input`, or why it cannot be one;
// `source` names the array in messages (its path).
absl::StatusOr<HostTensor> NpyToInput(const NpyArray& array, const Node& input, absl::string_view source);

std::string SerializeNpy(const HostTensor& tensor);
absl::Status WriteNpyFile(const std::string& path, const HostTensor& tensor);

}  // namespace kiln

#endif  // KILN_FRONTENDS_NPY_H_
