#include "frontends/npy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
// Real headers are a few hundred bytes; a larger claim is not an .npy file.
constexpr size_t kMaxHeaderBytes = 1 << 16;

absl::Status Bad(absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("not a valid .npy file: ", problem));
}

struct ElementType {
  absl::string_view code;  // the descr without its byte order: "f4", "i8", "b1"
  absl::string_view name;
  int size;
};

constexpr ElementType kTypes[] = {
    {"f2", "float16", 2}, {"f4", "float32", 4}, {"f8", "float64", 8},
    {"i4", "int32", 4},   {"i8", "int64", 8},   {"b1", "bool", 1},
};

// The value of `key` in the header dict: the text up to the next top-level comma.
absl::StatusOr<absl::string_view> HeaderField(absl::string_view header, absl::string_view key) {
  const std::string quoted = absl::StrCat("'", key, "':");
  const size_t at = header.find(quoted);
  if (at == absl::string_view::npos) return Bad(absl::StrCat("the header has no '", key, "'"));
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(at + quoted.size()));
  if (rest.empty()) return Bad(absl::StrCat("the header's '", key, "' is cut off"));
  const size_t end = rest.front() == '(' ? rest.find(')') + 1 : rest.find_first_of(",}");
  if (end == absl::string_view::npos || end == 0) return Bad(absl::StrCat("the header's '", key, "' is cut off"));
  return absl::StripTrailingAsciiWhitespace(rest.substr(0, end));
}

absl::StatusOr<Dims> ParseShape(absl::string_view text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return Bad("the shape is not a tuple");
  Dims shape;
  for (absl::string_view part : absl::StrSplit(text.substr(1, text.size() - 2), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t dim = 0;
    if (!absl::SimpleAtoi(part, &dim) || dim < 0) {
      return Bad(absl::StrCat("shape entry \"", absl::CEscape(part), "\" is not a dim"));
    }
    shape.push_back(dim);
  }
  if (absl::StatusOr<int64_t> count = CheckedNumElements(shape); !count.ok()) return Bad(count.status().message());
  return shape;
}

template <typename T>
T Load(const char* p, bool swap) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (swap) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

absl::StatusOr<double> Element(const ElementType& type, const char* p, bool swap) {
  if (type.code == "f2") return HalfBitsToFloat(Load<uint16_t>(p, swap));
  if (type.code == "f4") return Load<float>(p, swap);
  if (type.code == "f8") return Load<double>(p, swap);
  if (type.code == "i4") return Load<int32_t>(p, swap);
  if (type.code == "b1") {
    const uint8_t b = static_cast<uint8_t>(*p);
    if (b > 1) return Bad(absl::StrCat("a bool element is stored as ", b));
    return b;
  }
  const int64_t v = Load<int64_t>(p, swap);
  if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) return Bad(absl::StrCat("int64 element ", v, " is beyond 2^53"));
  return static_cast<double>(v);
}

// Which kiln dtype takes which NumPy arrays, and whether values must be checked.
bool KindFits(DType dtype, absl::string_view numpy) {
  switch (dtype) {
    case DType::kF32: return numpy == "float32" || numpy == "float64" || numpy == "float16";
    case DType::kF16: return numpy == "float16" || numpy == "float32" || numpy == "float64";
    case DType::kBF16: return numpy == "float32" || numpy == "float64";
    case DType::kI32: return numpy == "int32" || numpy == "int64";
    case DType::kBool: return numpy == "bool";
  }
  return false;
}

// Integers in full, other values with the digits a float32 needs.
std::string ValueText(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e18) return absl::StrCat(static_cast<int64_t>(v));
  return absl::StrFormat("%.9g", v);
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat(path, ": cannot read"));
  return contents.str();
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) return Bad("it does not start with \\x93NUMPY");
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_length = 0, header_start = 0;
  if (major == 1) {
    header_length = static_cast<uint8_t>(bytes[8]) | static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad("the header is cut off");
    for (int i = 3; i >= 0; --i) header_length = header_length << 8 | static_cast<uint8_t>(bytes[8 + i]);
    header_start = 12;
  } else {
    return Bad(absl::StrCat("format version ", major, " is not 1, 2 or 3"));
  }
  if (header_length > kMaxHeaderBytes || header_start + header_length > bytes.size()) {
    return Bad("the header is cut off");
  }
  const absl::string_view header = bytes.substr(header_start, header_length);
  absl::StatusOr<absl::string_view> descr = HeaderField(header, "descr");
  if (!descr.ok()) return descr.status();
  absl::StatusOr<absl::string_view> fortran = HeaderField(header, "fortran_order");
  if (!fortran.ok()) return fortran.status();
  absl::StatusOr<absl::string_view> shape_text = HeaderField(header, "shape");
  if (!shape_text.ok()) return shape_text.status();
  if (*fortran != "False") return absl::InvalidArgumentError("the array is in Fortran order; save it in C order");

  absl::string_view code = *descr;
  if (code.size() != 5 || code.front() != '\'' || code.back() != '\'') {
    return absl::InvalidArgumentError(absl::StrCat("dtype ", absl::CEscape(code), " is not supported"));
  }
  code = code.substr(1, 3);
  const char order = code[0];
  const ElementType* type = nullptr;
  for (const ElementType& t : kTypes) {
    if (t.code == code.substr(1)) type = &t;
  }
  if (type == nullptr || (order != '<' && order != '>' && order != '|' && order != '=')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype '", absl::CEscape(code), "' is not supported (float16, float32, float64, int32, int64 or bool)"));
  }
  absl::StatusOr<Dims> shape = ParseShape(*shape_text);
  if (!shape.ok()) return shape.status();

  NpyArray array{.dtype = std::string(type->name), .shape = *shape};
  const int64_t count = NumElements(array.shape);
  const absl::string_view payload = bytes.substr(header_start + header_length);
  if (static_cast<int64_t>(payload.size()) != count * type->size) {
    return Bad(absl::StrCat("a ", array.dtype, DimsString(array.shape), " array needs ", count * type->size,
                            " bytes of data; the file has ", payload.size()));
  }
  const bool swap = order == '>';
  array.data.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    absl::StatusOr<double> value = Element(*type, payload.data() + i * type->size, swap);
    if (!value.ok()) return value.status();
    array.data.push_back(*value);
  }
  return array;
}

absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<NpyArray> array = ParseNpy(*bytes);
  if (!array.ok()) return absl::Status(array.status().code(), absl::StrCat(path, ": ", array.status().message()));
  return array;
}

absl::StatusOr<HostTensor> NpyToInput(const NpyArray& array, const Node& input, absl::string_view source) {
  const std::string expected = absl::StrCat(DTypeName(input.dtype), DimsString(input.shape));
  if (array.shape != input.shape || !KindFits(input.dtype, array.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat("input \"", input.name, "\" is ", expected, "; ", source,
                                                   " holds ", array.dtype, DimsString(array.shape)));
  }
  for (size_t i = 0; i < array.data.size(); ++i) {
    const double v = array.data[i];
    if (!std::isnan(v) && RoundToDType(v, input.dtype) != v) {
      return absl::InvalidArgumentError(absl::StrCat("input \"", input.name, "\" is ", expected, "; element ", i,
                                                     " of ", source, " (", ValueText(v), ") is not representable in ",
                                                     DTypeName(input.dtype)));
    }
  }
  return HostTensor{.dtype = input.dtype, .shape = input.shape, .data = array.data};
}

std::string SerializeNpy(const HostTensor& tensor) {
  // bf16 is written as float32, which holds every bf16 value exactly.
  const bool widen = tensor.dtype == DType::kBF16;
  const DType stored = widen ? DType::kF32 : tensor.dtype;
  const char* descr = stored == DType::kF32 ? "<f4" : stored == DType::kF16 ? "<f2" : stored == DType::kI32 ? "<i4" : "|b1";
  std::vector<std::string> dims;
  for (int64_t d : tensor.shape) dims.push_back(absl::StrCat(d));
  std::string shape = absl::StrJoin(dims, ", ");
  if (dims.size() == 1) shape += ",";
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Magic, version and length take 10 bytes; the header ends in '\n' and the
  // data starts on a 64-byte boundary.
  const size_t padded = (10 + header.size() + 1 + 63) / 64 * 64 - 10;
  header.append(padded - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out += EncodeTensor({.dtype = stored, .shape = tensor.shape, .data = tensor.data});
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const HostTensor& tensor) {
  const std::string bytes = SerializeNpy(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

}  // namespace kiln
