// JSON text parts: escaping, numbers that stay valid JSON, layout.
#include "graph/json.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(JsonTest, StringsEscapeQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(JsonString("C:\\dir"), "\"C:\\\\dir\"");
  EXPECT_EQ(JsonString("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
  EXPECT_EQ(JsonString(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(JsonString("µs"), "\"µs\"");  // UTF-8 passes through
}

TEST(JsonTest, NumbersAreValidJsonOrNull) {
  EXPECT_EQ(JsonInt(-42), "-42");
  EXPECT_EQ(JsonFixed(1.23456, 3), "1.235");
  EXPECT_EQ(JsonFixed(2.0, 0), "2");
  EXPECT_EQ(JsonNumber(1.5e-7, 3), "1.5e-07");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity(), 3), "null");
  EXPECT_EQ(JsonFixed(std::nan(""), 2), "null");
  EXPECT_EQ(JsonBool(true), "true");
  EXPECT_EQ(JsonBool(false), "false");
}

TEST(JsonTest, ObjectsAndArrays) {
  EXPECT_EQ(JsonObject({{"name", JsonString("f0")}, {"bytes", JsonInt(8)}}), "{\"name\": \"f0\", \"bytes\": 8}");
  EXPECT_EQ(JsonObject({}), "{}");
  EXPECT_EQ(JsonArray({"1", "2"}), "[1, 2]");
  EXPECT_EQ(JsonArrayLines({"1", "2"}, 2), "[\n    1,\n    2\n  ]");
  EXPECT_EQ(JsonArrayLines({}, 2), "[]");
  EXPECT_EQ(JsonObjectLines({{"a", "1"}, {"quote\"d", "2"}}, 0), "{\n  \"a\": 1,\n  \"quote\\\"d\": 2\n}");
}

}  // namespace
}  // namespace kiln
