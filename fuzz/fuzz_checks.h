// What the fuzz targets assert beyond "no crash": a violated property is a
// bug, reported to libFuzzer by aborting with the reason.
//
//   FUZZ_EXPECT(reloaded.ok(), "a graph that loads must load again after saving");
//   return FuzzLoaderRoundTrip(bytes, kiln::ParseGraphText, kiln::SerializeGraphText);
#ifndef KILN_FUZZ_FUZZ_CHECKS_H_
#define KILN_FUZZ_FUZZ_CHECKS_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

#define FUZZ_EXPECT(condition, why)                                               \
  do {                                                                            \
    if (!(condition)) {                                                           \
      std::fprintf(stderr, "fuzz property violated: %s (%s)\n", why, #condition); \
      std::abort();                                                               \
    }                                                                             \
  } while (false)

// A loader's properties: any bytes either fail with InvalidArgument or give a
// graph that saves and loads back to itself.
template <typename Parse, typename Serialize>
int FuzzLoaderRoundTrip(absl::string_view bytes, Parse parse, Serialize serialize) {
  absl::StatusOr<kiln::Graph> graph = parse(bytes);
  if (!graph.ok()) {
    FUZZ_EXPECT(graph.status().code() == absl::StatusCode::kInvalidArgument, "bad input is InvalidArgument");
    return 0;
  }
  const std::string saved = serialize(*graph);
  absl::StatusOr<kiln::Graph> reloaded = parse(saved);
  FUZZ_EXPECT(reloaded.ok(), "a graph that loads must load again after saving");
  FUZZ_EXPECT(serialize(*reloaded) == saved, "save(load(save(g))) == save(g)");
  return 0;
}

#endif  // KILN_FUZZ_FUZZ_CHECKS_H_
