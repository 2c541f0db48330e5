#include "graph/json.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

std::string Lines(char open, const std::vector<std::string>& items, char close, int indent) {
  if (items.empty()) return std::string{open, close};
  const std::string inner(indent + 2, ' ');
  return absl::StrCat(std::string(1, open), "\n", inner, absl::StrJoin(items, absl::StrCat(",\n", inner)), "\n",
                      std::string(indent, ' '), std::string(1, close));
}

std::vector<std::string> MemberTexts(const JsonMembers& members) {
  std::vector<std::string> texts;
  texts.reserve(members.size());
  for (const auto& [key, value] : members) texts.push_back(absl::StrCat(JsonString(key), ": ", value));
  return texts;
}

}  // namespace

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonInt(int64_t value) { return absl::StrCat(value); }

std::string JsonBool(bool value) { return value ? "true" : "false"; }

std::string JsonFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.*f", decimals, value);
}

std::string JsonNumber(double value, int digits) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.*g", digits, value);
}

std::string JsonObject(const JsonMembers& members) {
  return absl::StrCat("{", absl::StrJoin(MemberTexts(members), ", "), "}");
}

std::string JsonArray(const std::vector<std::string>& items) {
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

std::string JsonObjectLines(const JsonMembers& members, int indent) {
  return Lines('{', MemberTexts(members), '}', indent);
}

std::string JsonArrayLines(const std::vector<std::string>& items, int indent) {
  return Lines('[', items, ']', indent);
}

}  // namespace kiln
