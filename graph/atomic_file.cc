#include "graph/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

absl::Status WriteAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::ErrnoToStatus(errno, "cannot write");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  // Without the sync, a crash after the rename can leave an empty file under
  // the new name on file systems that reorder metadata and data.
  if (fsync(fd) != 0) return absl::ErrnoToStatus(errno, "cannot sync");
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, absl::string_view bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1));
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot create a temporary file beside it");
  absl::Status status = WriteAll(fd, bytes);
  if (close(fd) != 0 && status.ok()) status = absl::ErrnoToStatus(errno, "cannot close");
  if (status.ok() && std::rename(temporary.c_str(), path.c_str()) != 0) {
    status = absl::ErrnoToStatus(errno, "cannot rename the temporary file over it");
  }
  if (!status.ok()) unlink(temporary.c_str());
  return status;
}

}  // namespace kiln
