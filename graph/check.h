// KILN_CHECK: internal invariants only, never user input (user mistakes are
// absl::Status errors). Debian's Abseil predates absl/log, so kiln keeps its own.
#ifndef KILN_GRAPH_CHECK_H_
#define KILN_GRAPH_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define KILN_CHECK(condition)                                                          \
  do {                                                                                 \
    if (!(condition)) {                                                                \
      std::fprintf(stderr, "kiln internal error: %s:%d: check failed: %s\n", __FILE__, \
                   __LINE__, #condition);                                              \
      std::abort();                                                                    \
    }                                                                                  \
  } while (false)

#endif  // KILN_GRAPH_CHECK_H_
