// What `kiln --version` prints: kiln's version and the git revision it was
// built from, the NVRTC it compiles with and the CUDA driver it would launch
// on (loaded with dlopen, so a machine without one says so and still works).
//
//   kiln 0.1.0 (git 7ac6d81f2a3b)
//   NVRTC 12.8
//   CUDA driver: 12.4
#ifndef KILN_FRONTENDS_CLI_VERSION_H_
#define KILN_FRONTENDS_CLI_VERSION_H_

#include <string>

namespace kiln {

// From the build (cmake/build_info.cmake): "0.1.0", and `git describe` of
// the source tree ("unknown" outside a git checkout).
extern const char kKilnVersion[];
extern const char kGitRevision[];

// "0.1.0 (git 7ac6d81f2a3b)": the build, as results record it.
std::string KilnBuildText();

std::string VersionText();

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_VERSION_H_
