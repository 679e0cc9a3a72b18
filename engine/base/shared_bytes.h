// Immutable bytes that several holders share without copying: a sequence of slices, each a
// view of memory that a shared owner keeps alive and that nobody changes while it is shared.
//
// What it is for: a leader's record batches travel to its followers in a FetchResponse, and a
// simulated disk can hand out slices of its own pages (Disk::read_shared) and keep slices it is
// given (Disk::append_shared), so three replicas of a partition hold one copy of its bytes in
// memory, not three. The bytes are the same either way; only memory and copies differ, so
// nothing a run observes depends on whether a disk shares or copies.
//
// Invariants: no slice is empty; size() is the sum of the slices' sizes. Copies share the
// slices; the bytes never change, so a copy is as good as the original.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace logsim {

class SharedBytes {
 public:
  struct Slice {
    std::shared_ptr<const void> owner;  // keeps [data, data + size) alive and unchanged
    const char* data = nullptr;
    std::size_t size = 0;
    std::string_view view() const { return {data, size}; }
  };

  SharedBytes() = default;
  // Takes `bytes` as one slice of its own.
  explicit SharedBytes(std::string bytes) {
    if (bytes.empty()) return;
    auto owned = std::make_shared<const std::string>(std::move(bytes));
    const char* data = owned->data();
    const std::size_t size = owned->size();
    append(Slice{std::move(owned), data, size});
  }

  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<Slice>& slices() const { return slices_; }

  // Appends a slice; one that continues the last slice of the same owner extends it.
  void append(Slice slice) {
    if (slice.size == 0) return;
    size_ += slice.size;
    if (!slices_.empty()) {
      Slice& last = slices_.back();
      if (last.owner == slice.owner && last.data + last.size == slice.data) {
        last.size += slice.size;
        return;
      }
    }
    slices_.push_back(std::move(slice));
  }
  void append(const SharedBytes& more) {
    for (const Slice& s : more.slices_) append(s);
  }

  // Bytes [pos, pos + n) clipped to the end, sharing the slices that hold them.
  SharedBytes sub(std::uint64_t pos, std::uint64_t n) const {
    SharedBytes out;
    for (const Slice& s : slices_) {
      if (n == 0) break;
      if (pos >= s.size) {
        pos -= s.size;
        continue;
      }
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, s.size - pos));
      out.append(Slice{s.owner, s.data + pos, take});
      n -= take;
      pos = 0;
    }
    return out;
  }

  // All the bytes at once: a view of the only slice, or a copy into `scratch` (valid until
  // `scratch` changes).
  std::string_view contiguous(std::string& scratch) const {
    if (slices_.size() == 1) return slices_.front().view();
    scratch.clear();
    scratch.reserve(static_cast<std::size_t>(size_));
    for (const Slice& s : slices_) scratch.append(s.view());
    return scratch;
  }
  // Copies bytes [pos, pos + n) into `out`; false (and nothing copied) if they reach past the end.
  bool copy_out(std::uint64_t pos, std::size_t n, char* out) const {
    if (pos > size_ || n > size_ - pos) return false;
    for (const Slice& s : slices_) {
      if (n == 0) break;
      if (pos >= s.size) {
        pos -= s.size;
        continue;
      }
      const std::size_t take = std::min<std::size_t>(n, s.size - static_cast<std::size_t>(pos));
      std::memcpy(out, s.data + pos, take);
      out += take;
      n -= take;
      pos = 0;
    }
    return true;
  }
  std::string str() const {
    std::string out;
    return std::string(contiguous(out));
  }

  // Equal bytes, however they are sliced.
  friend bool operator==(const SharedBytes& a, const SharedBytes& b) {
    if (a.size_ != b.size_) return false;
    std::string sa;
    std::string sb;
    return a.contiguous(sa) == b.contiguous(sb);
  }

 private:
  std::vector<Slice> slices_;
  std::uint64_t size_ = 0;
};

}  // namespace logsim
