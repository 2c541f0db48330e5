// libFuzzer target: the text graph loader (properties in fuzz_checks.h).
#include <cstddef>
#include <cstdint>

#include "frontends/graph_file.h"
#include "fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzLoaderRoundTrip(absl::string_view(reinterpret_cast<const char*>(data), size), kiln::ParseGraphText,
                             kiln::SerializeGraphText);
}
