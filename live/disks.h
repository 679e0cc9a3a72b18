// The disks of the live world (engine/env/disk.h's contract).
//
// MemDisk (`logsim serve --in-memory`): files in memory. What is written is what the page cache
// holds; an fsync makes the file's current length durable at once; power_loss() cuts every file
// back to its durable length (a file never synced disappears), the simulated disk's model for
// appends without its extra faults (no torn tail, no lying fsync). The engine only appends,
// truncates and renames, so a durable length is a durable prefix. Files are kept in pages
// (engine/base/paged_bytes.h), as the simulated disk's are: a follower's appends of its
// leader's batches (append_shared) and fetches (read_view, read_shared) share the leader's
// pages rather than copy them, so three replicas of a partition hold one copy of its bytes.
//
// FileDisk (`--data DIR`): files under one directory of the real file system, one per name
// (a name's '/' makes subdirectories). fsync is the real fsync(2) of the file and of its
// directory; it completes before fsync() returns, and the completion is then handed to the
// node (through the world) as on_fsync. A crash of a node keeps what the operating system
// holds. power_loss() cannot make a real file system forget: it truncates each file to the
// size it had at its last fsync and removes files never synced, which is the simulated
// disk's model for appends (the engine only appends, truncates and renames).
//
// Both complete an fsync through LiveDisk::fsync_done, which the world delivers after the
// current handler (never inside the node's own call).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/paged_bytes.h"
#include "live/live_world.h"

namespace logsim::live {

class MemDisk final : public LiveDisk {
 public:
  bool exists(std::string_view file) const override;
  std::uint64_t size(std::string_view file) const override;
  std::string read(std::string_view file, std::uint64_t offset, std::uint64_t len) const override;
  std::string_view read_view(std::string_view file, std::uint64_t offset, std::uint64_t len,
                             std::string& scratch) const override;
  SharedBytes read_shared(std::string_view file, std::uint64_t offset, std::uint64_t len) const override;
  std::vector<std::string> list() const override;
  void append(std::string_view file, std::string_view bytes) override;
  void append_shared(std::string_view file, const SharedBytes& bytes) override;
  void truncate(std::string_view file, std::uint64_t size) override;
  void rename(std::string_view from, std::string_view to) override;
  void remove(std::string_view file) override;
  void fsync(std::string_view file, std::uint64_t token) override;
  void power_loss() override;

 private:
  PagedBytes& file_for_append(std::string_view file);
  std::map<std::string, PagedBytes, std::less<>> files_;
  std::map<std::string, std::uint64_t, std::less<>> durable_;  // file -> its length at its last fsync
};

class FileDisk final : public LiveDisk {
 public:
  // Files live under `dir`, which is created if missing. Throws std::runtime_error when it
  // cannot be.
  explicit FileDisk(std::string dir);
  bool exists(std::string_view file) const override;
  std::uint64_t size(std::string_view file) const override;
  std::string read(std::string_view file, std::uint64_t offset, std::uint64_t len) const override;
  std::vector<std::string> list() const override;
  void append(std::string_view file, std::string_view bytes) override;
  void truncate(std::string_view file, std::uint64_t size) override;
  void rename(std::string_view from, std::string_view to) override;
  void remove(std::string_view file) override;
  void fsync(std::string_view file, std::uint64_t token) override;
  void power_loss() override;

 private:
  std::string path(std::string_view file) const;
  std::string dir_;
  std::map<std::string, std::uint64_t, std::less<>> synced_;  // file -> its size at its last fsync
};

}  // namespace logsim::live
