// Writing a file so that a reader sees either the old contents or all of the
// new ones, never a part, even across a crash: the bytes go to a temporary
// file beside the target, are synced to disk, and the temporary is renamed
// over the target. A failure leaves the target untouched and no temporary.
//
//   absl::Status s = WriteFileAtomically("graph.pb", bytes);
//   // on failure: "cannot create a temporary file beside it: Permission denied"
//
// Used for graph files, the kernel cache and dump folders.
#ifndef KILN_GRAPH_ATOMIC_FILE_H_
#define KILN_GRAPH_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kiln {

// The message says what failed, without the path (callers prefix it). The
// temporary's name is unique per process and call, so concurrent writers of
// one path (threads or processes) never share a temporary.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes);

}  // namespace kiln

#endif  // KILN_GRAPH_ATOMIC_FILE_H_
