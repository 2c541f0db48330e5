// JSON text for kiln's reports, built from parts so that every string is
// escaped and every number is valid JSON (a NaN or infinity becomes null).
//
//   JsonObject({{"name", JsonString("f0_pointwise")}, {"bytes", JsonInt(4096)}})
//     -> {"name": "f0_pointwise", "bytes": 4096}
//   JsonArrayLines({JsonInt(1), JsonInt(2)}, 2)
//     -> "[\n    1,\n    2\n  ]"   (items one indent deeper than the array)
#ifndef KILN_GRAPH_JSON_H_
#define KILN_GRAPH_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace kiln {

// Key and already-rendered JSON value.
using JsonMembers = std::vector<std::pair<std::string, std::string>>;

// A quoted JSON string: quotes, backslashes and control characters escaped.
std::string JsonString(absl::string_view text);
std::string JsonInt(int64_t value);
std::string JsonBool(bool value);
// `decimals` digits after the point: JsonFixed(1.23456, 3) -> 1.235.
std::string JsonFixed(double value, int decimals);
// `digits` significant digits: JsonNumber(1.5e-7, 3) -> 1.5e-07.
std::string JsonNumber(double value, int digits);

// On one line.
std::string JsonObject(const JsonMembers& members);
std::string JsonArray(const std::vector<std::string>& items);
// One member or item per line; `indent` is the indentation of the closing
// bracket, members are indented two more.
std::string JsonObjectLines(const JsonMembers& members, int indent);
std::string JsonArrayLines(const std::vector<std::string>& items, int indent);

}  // namespace kiln

#endif  // KILN_GRAPH_JSON_H_
