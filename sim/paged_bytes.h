// The bytes of one simulated file, kept in pages as an operating system's page cache keeps
// them, so that a file of n bytes costs n bytes plus at most one partly filled page, however it
// grew.
//
// Why not a std::string: a growing string doubles its capacity, so an appended-to file would
// hold up to twice its size (and copy itself at every doubling). Here every page but the last
// holds exactly kPageBytes; the last page's capacity is reserved exactly: it grows by doubling
// while the file is small (up to kGrowWholeAbove, so small files cost little), then it is
// allocated whole, and so is every later page. (Doubling on to 2 MiB cost a fresh mapping, its
// page faults, a copy and an munmap at each step: a quarter of a produce-heavy run.)
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
// 1. Every page but the last holds kPageBytes bytes; the last holds 1..kPageBytes; no page
//    exists for an empty file. size() is the sum.
// 2. Byte i lives at pages_[i / kPageBytes][i % kPageBytes].
#pragma once

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

#include "engine/env/assert.h"

namespace logsim::sim {

class PagedBytes {
 public:
  static constexpr std::uint64_t kPageBytes = std::uint64_t{1} << 21;  // 2 MiB: one huge page
  // A first page's capacity doubles up to this; past it the page is allocated whole.
  static constexpr std::size_t kGrowWholeAbove = std::size_t{64} << 10;

  // One page's bytes: raw storage (so appends are a memcpy and fresh storage is not zeroed), a
  // size and a capacity. A whole page (capacity kPageBytes) is 2 MiB-aligned; a smaller one (a
  // small file's only page) comes from the ordinary heap.
  class Page {
   public:
    Page() = default;
    Page(const Page& other) : Page() {
      if (other.size_ == 0) return;
      bytes_ = allocate(other.size_);
      capacity_ = other.size_;
      size_ = other.size_;
      std::memcpy(bytes_, other.bytes_, size_);
    }
    Page(Page&& other) noexcept
        : bytes_(std::exchange(other.bytes_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          capacity_(std::exchange(other.capacity_, 0)) {}
    Page& operator=(Page other) noexcept {
      std::swap(bytes_, other.bytes_);
      std::swap(size_, other.size_);
      std::swap(capacity_, other.capacity_);
      return *this;
    }
    ~Page() { deallocate(bytes_, capacity_); }

    char* data() { return bytes_; }
    const char* data() const { return bytes_; }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    char& operator[](std::size_t i) { return bytes_[i]; }

    // Grows the capacity to at least `n` (never shrinks), keeping the bytes.
    void reserve(std::size_t n) {
      if (n <= capacity_) return;
      char* grown = allocate(n);
      if (size_ > 0) std::memcpy(grown, bytes_, size_);
      deallocate(bytes_, capacity_);
      bytes_ = grown;
      capacity_ = n;
    }
    // Appends n bytes. Precondition: size() + n <= capacity().
    void append(const char* p, std::size_t n) {
      std::memcpy(bytes_ + size_, p, n);
      size_ += n;
    }
    // Cuts to n bytes (n <= size()); the capacity stays.
    void shrink_to(std::size_t n) { size_ = n; }

   private:
    static char* allocate(std::size_t n) {
      if (n == kPageBytes) {
        // (aligned new rather than mmap: the benchmarks' heap accounting sees it)
        return static_cast<char*>(::operator new(n, std::align_val_t{kPageBytes}));
      }
      return static_cast<char*>(::operator new(n));
    }
    static void deallocate(char* p, std::size_t n) noexcept {
      if (p == nullptr) return;
      if (n == kPageBytes) {
        ::operator delete(p, std::align_val_t{kPageBytes});
        return;
      }
      ::operator delete(p);
    }

    char* bytes_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
  };

  PagedBytes() = default;
  PagedBytes(const PagedBytes&) = default;
  PagedBytes& operator=(const PagedBytes&) = default;
  // A moved-from object is empty.
  PagedBytes(PagedBytes&& other) noexcept : pages_(std::move(other.pages_)), size_(std::exchange(other.size_, 0)) {
    other.pages_.clear();
  }
  PagedBytes& operator=(PagedBytes&& other) noexcept {
    pages_ = std::move(other.pages_);
    size_ = std::exchange(other.size_, 0);
    other.pages_.clear();
    return *this;
  }

  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void append(std::string_view bytes) {
    while (!bytes.empty()) {
      if (pages_.empty() || pages_.back().size() == kPageBytes) pages_.emplace_back();
      Page& page = pages_.back();
      const std::size_t n = std::min<std::size_t>(bytes.size(), kPageBytes - page.size());
      if (page.size() + n > page.capacity()) {
        // A first page grows by doubling while small, then whole; later pages are allocated whole.
        std::size_t grown = pages_.size() == 1 ? std::max(page.size() + n, 2 * page.capacity()) : kPageBytes;
        if (grown > kGrowWholeAbove) grown = kPageBytes;
        page.reserve(grown);
      }
      page.append(bytes.data(), n);
      size_ += n;
      bytes.remove_prefix(n);
    }
  }

  // Cuts to `n` bytes; no-op if already shorter. Pages past the end are freed.
  void truncate(std::uint64_t n) {
    if (n >= size_) return;
    pages_.resize(static_cast<std::size_t>((n + kPageBytes - 1) / kPageBytes));
    if (!pages_.empty()) pages_.back().shrink_to(static_cast<std::size_t>(n - (pages_.size() - 1) * kPageBytes));
    size_ = n;
  }

  // Frees every page.
  void clear() {
    std::vector<Page>().swap(pages_);
    size_ = 0;
  }

  // Bytes [offset, offset + len) clipped to the end, as a view of the page when they lie in
  // one, else copied into `scratch`. Valid until the next change to this object or `scratch`.
  std::string_view view(std::uint64_t offset, std::uint64_t len, std::string& scratch) const {
    if (offset >= size_) return {};
    len = std::min(len, size_ - offset);
    if (len == 0) return {};
    const std::size_t page = static_cast<std::size_t>(offset / kPageBytes);
    const std::size_t in_page = static_cast<std::size_t>(offset % kPageBytes);
    if (in_page + len <= kPageBytes) return std::string_view(pages_[page].data() + in_page, static_cast<std::size_t>(len));
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

  // The first `n` bytes (n <= size()) as a new object.
  PagedBytes prefix(std::uint64_t n) const {
    LOGSIM_ASSERT(n <= size_, "a prefix longer than its bytes");
    PagedBytes out;
    for (std::uint64_t at = 0; at < n;) {
      const std::uint64_t chunk = std::min(kPageBytes, n - at);
      const Page& page = pages_[static_cast<std::size_t>(at / kPageBytes)];
      out.append(std::string_view(page.data(), static_cast<std::size_t>(chunk)));
      at += chunk;
    }
    return out;
  }

  // Flips bits of byte `i` (a torn, half-written sector).
  void xor_byte(std::uint64_t i, unsigned char mask) {
    LOGSIM_ASSERT(i < size_, "a byte beyond the end");
    char& c = pages_[static_cast<std::size_t>(i / kPageBytes)][static_cast<std::size_t>(i % kPageBytes)];
    c = static_cast<char>(static_cast<unsigned char>(c) ^ mask);
  }

 private:
  void copy_to(std::uint64_t offset, std::uint64_t len, char* out) const {
    while (len > 0) {
      const std::size_t page = static_cast<std::size_t>(offset / kPageBytes);
      const std::size_t in_page = static_cast<std::size_t>(offset % kPageBytes);
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(len, kPageBytes - in_page));
      std::memcpy(out, pages_[page].data() + in_page, n);
      out += n;
      offset += n;
      len -= n;
    }
  }

  std::vector<Page> pages_;
  std::uint64_t size_ = 0;
};

}  // namespace logsim::sim
