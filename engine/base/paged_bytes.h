// The bytes of one in-memory file (the simulated disk's, sim/disk.h, and `logsim serve`'s
// in-memory disk, live/disks.h), kept in pages as an operating system's page cache keeps them,
// so that a file of n bytes costs n bytes plus at most one partly filled page, however it grew,
// and shared: a file may hold slices of other files' pages (a follower's copy of its
// leader's record batches) or of other memory (the records a producer sent, which its leader
// keeps as they came), and hand out slices of its own, without copying them.
//
// Layout. The file is a sequence of chunks, each a slice of a page kept alive by a shared
// owner. A page's bytes, once written, never change while anything may share them: pages only
// grow at their end, and only through the one PagedBytes that appends into it (`open_`). So a
// chunk, a prefix() copy or a SharedBytes slice handed out by share() stays valid and unchanged
// whatever this object does next. The one change in place, xor_byte (a torn sector), copies
// its chunk first.
//
// Appends. Bytes of its own go into the open page while the last chunk ends where that page
// ends and the page has room; else into a new page. A small file's bytes are one chunk whose
// page grows by doubling (a copy into a page twice as large) up to kGrowWholeAbove, so small
// files cost little; then pages are allocated whole (kPageBytes). (Doubling on to 2 MiB cost a
// fresh mapping, its page faults, a copy and an munmap at each step: a quarter of a
// produce-heavy run.) Shared slices are kept as chunks; one that continues the last chunk in
// the same page extends it, so a follower that fetched a leader's page in pieces holds one
// chunk per page. Bytes of its own after a shared slice go on in the open page's free room, as
// a new chunk; a page opened then doubles up to kGrowWholeAbove rather than being whole, as
// such bytes are few (the batch headers between a leader's shared records).
//
// Whole pages are 2 MiB, aligned to 2 MiB, so that where transparent huge pages are on for
// every mapping (THP "always") the kernel may back each with one huge page when it has one
// free. They are deliberately not madvise(MADV_HUGEPAGE)d: under the common "madvise" defrag
// setting that makes every first touch of a page compact memory synchronously until a huge page
// is free, which on a machine whose memory is fragmented (after a build, say) made a
// write-heavy run up to 2.5 times slower and its timing a lottery (docs/performance.md,
// session 11). Memory layout has no effect on results.
//
// Invariants:
// 1. No chunk is empty; starts_[i] is the sum of the sizes of chunks before i; size() is the
//    sum of all.
// 2. Bytes [0, size) of a page are never changed; only the PagedBytes whose open_ it is writes
//    past them (copies do not take open_).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/base/shared_bytes.h"

namespace logsim {

class PagedBytes {
 public:
  static constexpr std::uint64_t kPageBytes = std::uint64_t{1} << 21;  // 2 MiB: one huge page
  // A small file's page capacity doubles up to this; past it pages are allocated whole.
  static constexpr std::size_t kGrowWholeAbove = std::size_t{64} << 10;
  // The first page of our own bytes after a slice of others' bytes.
  static constexpr std::size_t kFirstBetweenShared = std::size_t{4} << 10;

  PagedBytes() = default;
  // A copy shares every chunk, and appends into pages of its own.
  PagedBytes(const PagedBytes& other) : chunks_(other.chunks_), starts_(other.starts_), size_(other.size_) {}
  PagedBytes& operator=(const PagedBytes& other) {
    if (this != &other) *this = PagedBytes(other);
    return *this;
  }
  // A moved-from object is empty.
  PagedBytes(PagedBytes&& other) noexcept
      : chunks_(std::exchange(other.chunks_, {})),
        starts_(std::exchange(other.starts_, {})),
        open_(std::exchange(other.open_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  PagedBytes& operator=(PagedBytes&& other) noexcept {
    chunks_ = std::exchange(other.chunks_, {});
    starts_ = std::exchange(other.starts_, {});
    open_ = std::exchange(other.open_, nullptr);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t chunk_count() const { return chunks_.size(); }
  // The capacity of the page our own appends go into (0 before the first).
  std::size_t open_page_capacity() const { return open_ ? open_->capacity : 0; }

  // Appends a copy of `bytes`.
  void append(std::string_view bytes) {
    while (!bytes.empty()) {
      if (!writable()) {
        if (open_ && open_->size < open_->capacity && !chunks_.empty()) {
          // A slice of others' bytes (or a cut) came after our last chunk: the open page's
          // free room is still ours alone, so our bytes go there as a new chunk.
          push_chunk(Chunk{open_, open_->bytes + open_->size, 0});
        } else {
          open_page(bytes.size());
        }
      }
      Page& page = *open_;
      const std::size_t n = std::min(bytes.size(), page.capacity - page.size);
      std::memcpy(page.bytes + page.size, bytes.data(), n);
      page.size += n;
      chunks_.back().len += n;
      size_ += n;
      bytes.remove_prefix(n);
    }
  }

  // Appends the slices themselves, sharing their owners' memory.
  void append_shared(const SharedBytes& bytes) {
    for (const SharedBytes::Slice& s : bytes.slices()) push_chunk(Chunk{s.owner, s.data, s.size});
  }

  // Cuts to `n` bytes; no-op if already shorter. Chunks past the end are released.
  void truncate(std::uint64_t n) {
    if (n >= size_) return;
    const std::size_t keep = n == 0 ? 0 : chunk_at(n - 1) + 1;
    chunks_.resize(keep);
    starts_.resize(keep);
    size_ = n;
    if (keep == 0) {
      open_.reset();
      return;
    }
    Chunk& last = chunks_.back();
    last.len = static_cast<std::size_t>(n - starts_.back());
    // The open page's cut tail is reused when nothing else shares the page (the only other
    // reference being our last chunk); else the next append opens another page.
    if (open_ && last.owner.get() == open_.get() && open_.use_count() == 2) {
      open_->size = static_cast<std::size_t>(last.data + last.len - open_->bytes);
    }
  }

  // Releases every chunk.
  void clear() {
    std::vector<Chunk>().swap(chunks_);
    std::vector<std::uint64_t>().swap(starts_);
    open_.reset();
    size_ = 0;
  }

  // Bytes [offset, offset + len) clipped to the end, as a view of the chunk when they lie in
  // one, else copied into `scratch`. Valid until the next change to this object or `scratch`.
  std::string_view view(std::uint64_t offset, std::uint64_t len, std::string& scratch) const {
    if (offset >= size_) return {};
    len = std::min(len, size_ - offset);
    if (len == 0) return {};
    const std::size_t i = chunk_at(offset);
    const std::uint64_t in_chunk = offset - starts_[i];
    if (in_chunk + len <= chunks_[i].len) {
      return std::string_view(chunks_[i].data + in_chunk, static_cast<std::size_t>(len));
    }
    scratch.resize(static_cast<std::size_t>(len));
    copy_to(offset, len, scratch.data());
    return scratch;
  }

  // Bytes [offset, offset + len) clipped to the end, copied.
  std::string read(std::uint64_t offset, std::uint64_t len) const {
    if (offset >= size_) return {};
    len = std::min(len, size_ - offset);
    std::string out(static_cast<std::size_t>(len), '\0');
    copy_to(offset, len, out.data());
    return out;
  }

  // Bytes [offset, offset + len) clipped to the end, as slices of the chunks that hold them.
  SharedBytes share(std::uint64_t offset, std::uint64_t len) const {
    SharedBytes out;
    if (offset >= size_) return out;
    len = std::min(len, size_ - offset);
    for (std::size_t i = chunk_at(offset); len > 0; ++i) {
      const auto in_chunk = static_cast<std::size_t>(offset - starts_[i]);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, chunks_[i].len - in_chunk));
      out.append(SharedBytes::Slice{chunks_[i].owner, chunks_[i].data + in_chunk, n});
      offset += n;
      len -= n;
    }
    return out;
  }

  // The first `n` bytes (n <= size()) as a new object, sharing the chunks.
  PagedBytes prefix(std::uint64_t n) const {
    LOGSIM_ASSERT(n <= size_, "a prefix longer than its bytes");
    PagedBytes out(*this);
    out.truncate(n);
    return out;
  }

  // Flips bits of byte `i` (a torn, half-written sector). The chunk holding it is copied first,
  // since others may share its bytes.
  void xor_byte(std::uint64_t i, unsigned char mask) {
    LOGSIM_ASSERT(i < size_, "a byte beyond the end");
    const std::size_t c = chunk_at(i);
    Chunk& chunk = chunks_[c];
    auto page = std::make_shared<Page>(chunk.len);
    std::memcpy(page->bytes, chunk.data, chunk.len);
    page->size = chunk.len;
    char& byte = page->bytes[i - starts_[c]];
    byte = static_cast<char>(static_cast<unsigned char>(byte) ^ mask);
    chunk.data = page->bytes;
    chunk.owner = std::move(page);  // full: nothing appends into it
  }

 private:
  // Raw storage (so appends are a memcpy and fresh storage is not zeroed) that only grows at
  // its end. A whole page (capacity kPageBytes) is 2 MiB-aligned; a smaller one comes from the
  // ordinary heap.
  struct Page {
    explicit Page(std::size_t cap) : bytes(allocate(cap)), capacity(cap) {}
    Page(const Page&) = delete;
    Page& operator=(const Page&) = delete;
    ~Page() {
      if (capacity == kPageBytes) {
        ::operator delete(bytes, std::align_val_t{kPageBytes});
      } else {
        ::operator delete(bytes);
      }
    }
    static char* allocate(std::size_t n) {
      if (n == kPageBytes) {
        // (aligned new rather than mmap: the benchmarks' heap accounting sees it)
        auto* bytes = static_cast<char*>(::operator new(n, std::align_val_t{kPageBytes}));
#ifdef MADV_POPULATE_WRITE
        // The page will be written whole: map it in one call rather than fault in each 4 KiB
        // on first touch (512 faults, each an exit to the hypervisor on a virtual machine).
        // Best effort: on failure the pages fault in as usual.
        static_cast<void>(::madvise(bytes, n, MADV_POPULATE_WRITE));
#endif
        return bytes;
      }
      return static_cast<char*>(::operator new(n));
    }
    char* bytes;
    std::size_t size = 0;
    std::size_t capacity;
  };
  struct Chunk {
    std::shared_ptr<const void> owner;
    const char* data = nullptr;
    std::size_t len = 0;
  };

  // Whether appends may go into the open page: the last chunk ends where it ends, with room.
  bool writable() const {
    return open_ && !chunks_.empty() && chunks_.back().data + chunks_.back().len == open_->bytes + open_->size &&
           open_->size < open_->capacity;
  }

  // Opens a page for `want` more bytes of our own, leaving the last chunk ending at its end.
  void open_page(std::size_t want) {
    const bool small = chunks_.size() <= 1 && size_ + want <= kGrowWholeAbove;
    if (!small) {
      const std::size_t last_capacity = open_ ? open_->capacity : 0;
      // After a slice of others' bytes, or in a page opened so (one that filled in the middle
      // of a header)...
      const bool between = !chunks_.empty() && (chunks_.back().owner.get() != open_.get() ||
                                                (chunks_.size() > 1 && open_->capacity < kPageBytes));
      if (between) {
        // ...our bytes are few (a leader's batch headers between the records it keeps as the
        // producer sent them): their pages double, up to kGrowWholeAbove.
        const std::size_t capacity = std::min(kGrowWholeAbove, std::max({kFirstBetweenShared, want, 2 * last_capacity}));
        open_ = std::make_shared<Page>(capacity);
      } else {
        open_ = std::make_shared<Page>(static_cast<std::size_t>(kPageBytes));
      }
      push_chunk(Chunk{open_, open_->bytes, 0});
      return;
    }
    // A small file: one chunk, its page grown by doubling (the bytes copied into a new page).
    const std::size_t old_capacity = open_ && !chunks_.empty() && chunks_[0].owner.get() == open_.get() ? open_->capacity : 0;
    const std::size_t capacity = std::max(static_cast<std::size_t>(size_) + want, 2 * old_capacity);
    auto page = std::make_shared<Page>(std::min(capacity, static_cast<std::size_t>(kGrowWholeAbove)));
    if (!chunks_.empty()) std::memcpy(page->bytes, chunks_[0].data, chunks_[0].len);
    page->size = static_cast<std::size_t>(size_);
    open_ = std::move(page);
    chunks_.clear();
    starts_.clear();
    chunks_.push_back(Chunk{open_, open_->bytes, static_cast<std::size_t>(size_)});
    starts_.push_back(0);
  }

  // Appends a chunk, extending the last one when it continues it in the same memory. An empty
  // chunk is kept only to be appended into (open_page), as the last.
  void push_chunk(Chunk c) {
    if (!chunks_.empty()) {
      Chunk& last = chunks_.back();
      if (last.len == 0) {
        chunks_.pop_back();
        starts_.pop_back();
      } else if (last.owner == c.owner && last.data + last.len == c.data) {
        last.len += c.len;
        size_ += c.len;
        return;
      }
    }
    if (c.len == 0 && c.owner.get() != open_.get()) return;
    starts_.push_back(size_);
    size_ += c.len;
    chunks_.push_back(std::move(c));
  }

  // The index of the chunk holding byte `offset` (< size()).
  std::size_t chunk_at(std::uint64_t offset) const {
    const auto above = std::upper_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<std::size_t>(above - starts_.begin()) - 1;
  }

  void copy_to(std::uint64_t offset, std::uint64_t len, char* out) const {
    for (std::size_t i = chunk_at(offset); len > 0; ++i) {
      const auto in_chunk = static_cast<std::size_t>(offset - starts_[i]);
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, chunks_[i].len - in_chunk));
      std::memcpy(out, chunks_[i].data + in_chunk, n);
      out += n;
      offset += n;
      len -= n;
    }
  }

  std::vector<Chunk> chunks_;
  std::vector<std::uint64_t> starts_;  // file offset of each chunk's first byte
  std::shared_ptr<Page> open_;         // the page our own appends go into
  std::uint64_t size_ = 0;
};

}  // namespace logsim
