#include "frontends/cli/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace kiln {
namespace {

// A temporary file that is removed when this goes out of scope.
class CaptureFile {
 public:
  CaptureFile() {
    std::error_code error;
    path_ = (std::filesystem::temp_directory_path(error) / "kiln-capture.XXXXXX").string();
    fd_ = error ? -1 : mkstemp(path_.data());
  }
  ~CaptureFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  CaptureFile(const CaptureFile&) = delete;
  CaptureFile& operator=(const CaptureFile&) = delete;

  int fd() const { return fd_; }
  std::string Read() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    return contents.str();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  CaptureFile out, err;
  if (out.fd() < 0 || err.fd() < 0) return absl::ErrnoToStatus(errno, "cannot create a temporary file");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd(), 2);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return absl::ErrnoToStatus(spawned, absl::StrCat("cannot run ", argv[0]));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, absl::StrCat("cannot wait for ", argv[0]));
  }
  return ProcessResult{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1, .out = out.Read(), .err = err.Read()};
}

std::string FindProgram(absl::string_view name) {
  if (name.empty()) return "";
  if (name.find('/') != absl::string_view::npos) {
    return access(std::string(name).c_str(), X_OK) == 0 ? std::string(name) : "";
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
  }
  return "";
}

std::string LastLine(absl::string_view text) {
  std::string last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (!stripped.empty()) last = std::string(stripped);
  }
  return last;
}

}  // namespace kiln
