// What every fuzz target asserts beyond "no crash": a violated property is a
// bug, reported to libFuzzer by aborting with the reason.
//
//   FUZZ_EXPECT(reloaded.ok(), "a graph that loads must load again after saving");
#ifndef KILN_FUZZ_FUZZ_CHECKS_H_
#define KILN_FUZZ_FUZZ_CHECKS_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_EXPECT(condition, why)                                            \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "fuzz property violated: %s (%s)\n", why, #condition); \
      std::abort();                                                            \
    }                                                                          \
  } while (false)

#endif  // KILN_FUZZ_FUZZ_CHECKS_H_
