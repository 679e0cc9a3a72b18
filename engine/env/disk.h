// The disk a node sees: named files of bytes, with an explicit fsync.
//
// Contract (the same for the simulated and the real disk):
// - append/truncate/rename/remove take effect at once for reads by this node (they land in
//   the operating system's page cache).
// - They are durable only once an fsync of the file has completed: Node::on_fsync(token) says
//   so. A process crash keeps what the page cache holds; a power loss keeps only what was
//   durable (the simulated disk may also tear the last unsynced write, or lie about fsync, when
//   a scenario asks for those faults).
// - list() is sorted by name, so iterating it is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/shared_bytes.h"

namespace logsim {

class Disk {
 public:
  virtual ~Disk() = default;

  virtual bool exists(std::string_view file) const = 0;
  virtual std::uint64_t size(std::string_view file) const = 0;
  // Bytes [offset, offset + len) of the file, clipped to its end.
  virtual std::string read(std::string_view file, std::uint64_t offset, std::uint64_t len) const = 0;
  // The same bytes as read(), without a copy where the disk can avoid one: a view of the disk's
  // own memory, or of `scratch` (which it may overwrite) when the bytes are not contiguous
  // there. The view is valid until the next change to this disk (append, truncate, rename,
  // remove, or a crash or power loss) or to `scratch`, whichever comes first; read it, do not
  // keep it. This default copies through read().
  virtual std::string_view read_view(std::string_view file, std::uint64_t offset, std::uint64_t len,
                                     std::string& scratch) const {
    scratch = read(file, offset, len);
    return scratch;
  }
  // The same bytes as read(), as slices that stay valid and unchanged whatever later happens to
  // the file or the disk: a disk that can share its own memory (the simulated one) hands it out
  // rather than copying. This default copies through read().
  virtual SharedBytes read_shared(std::string_view file, std::uint64_t offset, std::uint64_t len) const {
    return SharedBytes(read(file, offset, len));
  }
  // All file names, sorted.
  virtual std::vector<std::string> list() const = 0;

  // Appends bytes, creating the file if absent.
  virtual void append(std::string_view file, std::string_view bytes) = 0;
  // The same as append() of the bytes, which a disk may keep as the slices they are rather than
  // copy (a follower's copy of its leader's batches, on the simulated disk). This default copies.
  virtual void append_shared(std::string_view file, const SharedBytes& bytes) {
    if (bytes.empty()) return append(file, {});
    for (const SharedBytes::Slice& s : bytes.slices()) append(file, s.view());
  }
  // Cuts the file to `size` bytes (no-op if already shorter).
  virtual void truncate(std::string_view file, std::uint64_t size) = 0;
  // Atomically replaces `to` with `from` (the write-temp-then-rename idiom).
  virtual void rename(std::string_view from, std::string_view to) = 0;
  virtual void remove(std::string_view file) = 0;

  // Starts making the file's current contents (and its name) durable. When that is done the
  // node's on_fsync(token) runs. Until then a power loss may drop the unsynced changes.
  virtual void fsync(std::string_view file, std::uint64_t token) = 0;
};

}  // namespace logsim
