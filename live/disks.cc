// The live world's disks (see disks.h).
#include "live/disks.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "engine/base/assert.h"

namespace logsim::live {

namespace fs = std::filesystem;

// ---- MemDisk

bool MemDisk::exists(std::string_view file) const { return files_.find(file) != files_.end(); }

std::uint64_t MemDisk::size(std::string_view file) const {
  const auto it = files_.find(file);
  return it == files_.end() ? 0 : it->second.size();
}

std::string MemDisk::read(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
  const auto it = files_.find(file);
  return it == files_.end() ? std::string() : it->second.read(offset, len);
}

std::string_view MemDisk::read_view(std::string_view file, std::uint64_t offset, std::uint64_t len, std::string& scratch) const {
  const auto it = files_.find(file);
  return it == files_.end() ? std::string_view() : it->second.view(offset, len, scratch);
}

SharedBytes MemDisk::read_shared(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
  const auto it = files_.find(file);
  return it == files_.end() ? SharedBytes() : it->second.share(offset, len);
}

std::vector<std::string> MemDisk::list() const {
  std::vector<std::string> out;
  for (const auto& [name, bytes] : files_) out.push_back(name);
  return out;
}

PagedBytes& MemDisk::file_for_append(std::string_view file) {
  auto it = files_.find(file);
  if (it == files_.end()) it = files_.emplace(std::string(file), PagedBytes()).first;
  return it->second;
}

void MemDisk::append(std::string_view file, std::string_view bytes) { file_for_append(file).append(bytes); }

void MemDisk::append_shared(std::string_view file, const SharedBytes& bytes) { file_for_append(file).append_shared(bytes); }

void MemDisk::truncate(std::string_view file, std::uint64_t size) {
  const auto it = files_.find(file);
  if (it != files_.end()) it->second.truncate(size);
  if (const auto d = durable_.find(file); d != durable_.end()) d->second = std::min(d->second, size);
}

void MemDisk::rename(std::string_view from, std::string_view to) {
  auto it = files_.find(from);
  LOGSIM_ASSERT(it != files_.end(), "rename of a missing file " + std::string(from));
  PagedBytes bytes = std::move(it->second);
  files_.erase(it);
  files_[std::string(to)] = std::move(bytes);
  // Durable only once `to` is synced.
  if (const auto d = durable_.find(from); d != durable_.end()) durable_.erase(d);
  if (const auto d = durable_.find(to); d != durable_.end()) durable_.erase(d);
}

void MemDisk::remove(std::string_view file) {
  if (auto it = files_.find(file); it != files_.end()) files_.erase(it);
  if (auto it = durable_.find(file); it != durable_.end()) durable_.erase(it);
}

void MemDisk::fsync(std::string_view file, std::uint64_t token) {
  if (const auto it = files_.find(file); it != files_.end()) durable_[std::string(file)] = it->second.size();
  fsync_done(token);
}

void MemDisk::power_loss() {
  for (auto it = files_.begin(); it != files_.end();) {
    const auto d = durable_.find(it->first);
    if (d == durable_.end()) {
      it = files_.erase(it);
    } else {
      it->second.truncate(d->second);
      ++it;
    }
  }
}

// ---- FileDisk

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error("logsim: " + what + " " + path + ": " + std::strerror(errno));
}

void sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) fail("cannot open for fsync", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("fsync failed for", path);
}

}  // namespace

FileDisk::FileDisk(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) throw std::runtime_error("logsim: cannot create the data directory " + dir_);
  // What is already there was written by an earlier run that ended: it counts as synced.
  for (const std::string& f : list()) synced_[f] = size(f);
}

std::string FileDisk::path(std::string_view file) const {
  LOGSIM_ASSERT(!file.empty() && file.find("..") == std::string_view::npos && file.front() != '/',
                "a disk file name stays inside its directory: " + std::string(file));
  return dir_ + "/" + std::string(file);
}

bool FileDisk::exists(std::string_view file) const { return fs::is_regular_file(path(file)); }

std::uint64_t FileDisk::size(std::string_view file) const {
  std::error_code ec;
  const auto n = fs::file_size(path(file), ec);
  return ec ? 0 : n;
}

std::string FileDisk::read(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
  const std::string p = path(file);
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return {};
  const std::uint64_t total = size(file);
  std::string out(offset >= total ? 0 : std::min(len, total - offset), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

std::vector<std::string> FileDisk::list() const {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir_).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void FileDisk::append(std::string_view file, std::string_view bytes) {
  const std::string p = path(file);
  fs::create_directories(fs::path(p).parent_path());
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) fail("cannot open for append", p);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      ::close(fd);
      fail("cannot append to", p);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

void FileDisk::truncate(std::string_view file, std::uint64_t size_bytes) {
  if (size(file) <= size_bytes) return;
  const std::string p = path(file);
  if (::truncate(p.c_str(), static_cast<off_t>(size_bytes)) != 0) fail("cannot truncate", p);
}

void FileDisk::rename(std::string_view from, std::string_view to) {
  const std::string a = path(from), b = path(to);
  fs::create_directories(fs::path(b).parent_path());
  if (::rename(a.c_str(), b.c_str()) != 0) fail("cannot rename to " + b + ":", a);
  if (const auto it = synced_.find(from); it != synced_.end()) synced_.erase(it);
}

void FileDisk::remove(std::string_view file) {
  std::error_code ec;
  fs::remove(path(file), ec);
  if (const auto it = synced_.find(file); it != synced_.end()) synced_.erase(it);
}

void FileDisk::fsync(std::string_view file, std::uint64_t token) {
  const std::string p = path(file);
  if (fs::exists(p)) {
    sync_path(p, O_RDONLY);
    sync_path(fs::path(p).parent_path().string(), O_RDONLY | O_DIRECTORY);  // its name, after a create or rename
    synced_[std::string(file)] = size(file);
  }
  fsync_done(token);
}

void FileDisk::power_loss() {
  for (const std::string& f : list()) {
    const auto it = synced_.find(f);
    if (it == synced_.end()) remove(f);
    else truncate(f, it->second);
  }
}

}  // namespace logsim::live
