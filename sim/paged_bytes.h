// The bytes of one simulated file, kept in pages as an operating system's page cache keeps
// them, so that a file of n bytes costs n bytes plus at most one partly filled page, however it
// grew.
//
// Why not a std::string: a growing string doubles its capacity, so an appended-to file would
// hold up to twice its size (and copy itself at every doubling). Here every page but the last
// holds exactly kPageBytes; the last page's capacity is reserved exactly: it grows by doubling
// while the file is small (so small files cost little), and a new page is allocated whole.
//
// Whole pages are 2 MiB, aligned to 2 MiB and marked for transparent huge pages (Linux
// madvise), so that writing a large simulated log faults in one huge page per 2 MiB instead
// of 512 small ones: first-touch page faults were the largest cost of a write-heavy run.
// Memory layout has no effect on results.
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

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "engine/env/assert.h"

namespace logsim::sim {

// Allocates a whole page (exactly `kBytes`) as huge-page-backed memory; anything else from the
// ordinary heap. Stateless: all instances are equal.
template <typename T, std::size_t kBytes>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U, kBytes>&) noexcept {}  // NOLINT: rebinding is implicit
  template <typename U>
  struct rebind {
    using other = PageAllocator<U, kBytes>;
  };
  T* allocate(std::size_t n) {
    if (n * sizeof(T) == kBytes) return static_cast<T*>(allocate_huge(kBytes));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) == kBytes) {
      ::operator delete(p, std::align_val_t{kBytes});
      return;
    }
    std::allocator<T>().deallocate(p, n);
  }
  friend bool operator==(const PageAllocator&, const PageAllocator&) { return true; }

 private:
  static void* allocate_huge(std::size_t bytes);
};

class PagedBytes {
 public:
  static constexpr std::uint64_t kPageBytes = std::uint64_t{1} << 21;  // 2 MiB: one huge page
  using Page = std::vector<char, PageAllocator<char, static_cast<std::size_t>(kPageBytes)>>;

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
        // A first page grows by doubling up to a page; later pages are allocated whole.
        const std::size_t grown = pages_.size() == 1 ? std::max(page.size() + n, 2 * page.capacity()) : kPageBytes;
        page.reserve(std::min<std::size_t>(grown, kPageBytes));
      }
      page.insert(page.end(), bytes.data(), bytes.data() + n);
      size_ += n;
      bytes.remove_prefix(n);
    }
  }

  // Cuts to `n` bytes; no-op if already shorter. Pages past the end are freed.
  void truncate(std::uint64_t n) {
    if (n >= size_) return;
    pages_.resize(static_cast<std::size_t>((n + kPageBytes - 1) / kPageBytes));
    if (!pages_.empty()) pages_.back().resize(static_cast<std::size_t>(n - (pages_.size() - 1) * kPageBytes));
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

template <typename T, std::size_t kBytes>
void* PageAllocator<T, kBytes>::allocate_huge(std::size_t bytes) {
  void* p = ::operator new(bytes, std::align_val_t{kBytes});  // (aligned new: heap accounting sees it)
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint; failure only costs speed
#endif
  return p;
}

}  // namespace logsim::sim
