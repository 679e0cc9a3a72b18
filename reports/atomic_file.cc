// Temporary file, fsync, rename.
#include "reports/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace logsim::reports {

std::string write_file_atomically(const std::string& path, std::string_view contents) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return "cannot create directory " + target.parent_path().string() + ": " + ec.message();
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write " + tmp + ": " + std::strerror(errno);
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return "cannot write " + tmp + ": " + err;
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;
  const int close_errno = errno;
  if (!synced || !closed) {
    ::unlink(tmp.c_str());
    return "cannot flush " + tmp + ": " + std::strerror(synced ? close_errno : sync_errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return "cannot rename " + tmp + " to " + path + ": " + err;
  }
  return {};
}

}  // namespace logsim::reports
