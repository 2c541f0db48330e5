// NumPy .npy files: what kiln writes reads back, headers as NumPy writes
// them parse, and every bad file or mismatched input gets a clear message.
#include "frontends/npy.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

// A file as numpy.save writes it (format 1.0, header padded to 64 bytes).
std::string NumpyFile(absl::string_view descr, absl::string_view shape, absl::string_view data,
                      absl::string_view fortran = "False") {
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': ", fortran, ", 'shape': ", shape, ", }");
  header.append((10 + header.size() + 1 + 63) / 64 * 64 - 10 - header.size() - 1, ' ');
  header += '\n';
  return absl::StrCat("\x93NUMPY\x01", std::string(1, '\0'), std::string(1, static_cast<char>(header.size())),
                      std::string(1, '\0'), header, data);
}

std::string Status(const absl::StatusOr<NpyArray>& a) { return std::string(a.status().message()); }

TEST(NpyTest, WhatKilnWritesReadsBackInEveryDType) {
  for (DType dtype : kAllDTypes) {
    const HostTensor t = RandomTensor(dtype, {3, 1, 4}, 9);
    absl::StatusOr<NpyArray> back = ParseNpy(SerializeNpy(t));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->data, t.data) << DTypeName(dtype);
    EXPECT_EQ(back->dtype, dtype == DType::kBF16 || dtype == DType::kF32 ? "float32"
                           : dtype == DType::kF16                      ? "float16"
                           : dtype == DType::kI32                      ? "int32"
                                                                       : "bool");
  }
  // numpy.save's layout: the data starts on a 64-byte boundary after a '\n'.
  const std::string bytes = SerializeNpy({.dtype = DType::kF32, .shape = {2}, .data = {1, 2}});
  ASSERT_EQ(bytes.size(), 128u + 8);
  EXPECT_EQ(bytes.substr(10, 57), "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
  EXPECT_EQ(bytes[127], '\n');
}

TEST(NpyTest, NumpyHeadersScalarsAndBigEndianParse) {
  absl::StatusOr<NpyArray> scalar = ParseNpy(NumpyFile("<f8", "()", std::string("\0\0\0\0\0\0\xf8\x3f", 8)));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_THAT(scalar->data, ElementsAre(1.5));
  absl::StatusOr<NpyArray> big = ParseNpy(NumpyFile(">i4", "(2,)", std::string("\0\0\0\x07\xff\xff\xff\xfe", 8)));
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_THAT(big->data, ElementsAre(7, -2));
  absl::StatusOr<NpyArray> wide = ParseNpy(NumpyFile("<i8", "(1, 1)", std::string("\x05\0\0\0\0\0\0\0", 8)));
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(wide->dtype, "int64");
  EXPECT_THAT(wide->shape, ElementsAre(1, 1));
}

TEST(NpyTest, BadFilesAreRefused) {
  EXPECT_EQ(Status(ParseNpy("PK\x03\x04 zip")), "not a valid .npy file: it does not start with \\x93NUMPY");
  EXPECT_EQ(Status(ParseNpy(NumpyFile("<f4", "(2,)", "abc"))),
            "not a valid .npy file: a float32[2] array needs 8 bytes of data; the file has 3");
  EXPECT_EQ(Status(ParseNpy(NumpyFile("<c8", "(1,)", "12345678"))),
            "dtype '<c8' is not supported (float16, float32, float64, int32, int64 or bool)");
  EXPECT_EQ(Status(ParseNpy(NumpyFile("<f4", "(2, 2)", std::string(16, '\0'), "True"))),
            "the array is in Fortran order; save it in C order");
  EXPECT_EQ(Status(ParseNpy(NumpyFile("<f4", "(2, -1)", ""))), "not a valid .npy file: shape entry \"-1\" is not a dim");
  EXPECT_EQ(Status(ParseNpy(NumpyFile("|b1", "(1,)", "\x02"))), "not a valid .npy file: a bool element is stored as 2");
  std::string truncated = NumpyFile("<f4", "(1,)", "abcd").substr(0, 30);
  EXPECT_EQ(Status(ParseNpy(truncated)), "not a valid .npy file: the header is cut off");
  EXPECT_EQ(ReadNpyFile("/nonexistent/x.npy").status().message(), "/nonexistent/x.npy: cannot open");
}

TEST(NpyTest, InputsTakeOnlyArraysTheyHoldExactly) {
  const Node x{.name = "x", .op = OpKind::kInput, .dtype = DType::kBF16, .shape = {2}};
  absl::StatusOr<HostTensor> ok = NpyToInput({.dtype = "float32", .shape = {2}, .data = {0.5, -3}}, x, "x.npy");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->dtype, DType::kBF16);
  ExpectInvalid(NpyToInput({.dtype = "float32", .shape = {2}, .data = {0.5, static_cast<float>(0.1)}}, x, "x.npy").status(),
                "input \"x\" is bf16[2]; element 1 of x.npy (0.100000001) is not representable in bf16");
  ExpectInvalid(NpyToInput({.dtype = "float32", .shape = {2, 1}, .data = {0, 0}}, x, "x.npy").status(),
                "input \"x\" is bf16[2]; x.npy holds float32[2,1]");
  ExpectInvalid(NpyToInput({.dtype = "int32", .shape = {2}, .data = {0, 0}}, x, "x.npy").status(),
                "input \"x\" is bf16[2]; x.npy holds int32[2]");
  const Node n{.name = "n", .op = OpKind::kInput, .dtype = DType::kI32, .shape = {1}};
  EXPECT_TRUE(NpyToInput({.dtype = "int64", .shape = {1}, .data = {-7}}, n, "n.npy").ok());
  ExpectInvalid(NpyToInput({.dtype = "int64", .shape = {1}, .data = {4294967296.0}}, n, "n.npy").status(),
                "input \"n\" is i32[1]; element 0 of n.npy (4294967296) is not representable in i32");
  const Node f{.name = "f", .op = OpKind::kInput, .dtype = DType::kF32, .shape = {1}};
  EXPECT_TRUE(NpyToInput({.dtype = "float32", .shape = {1}, .data = {std::nan("")}}, f, "f.npy").ok());
}

}  // namespace
}  // namespace kiln
