// Per-partition state indexed by offset, for the checkers: a map from offset to T kept in pages
// of 1,024 consecutive offsets. Offsets within a partition are dense (the log hands them out in
// order), so this costs a few bytes of bookkeeping per offset instead of a tree node, and finds
// an offset in O(log pages) with the last page cached. Any offsets work (a history from
// elsewhere may be sparse or start high): a page exists only where an offset is present.
// Iteration is in offset order.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <utility>

namespace logsim::properties {

template <class T>
class OffsetTable {
  static constexpr int kBits = 10;
  static constexpr std::int64_t kPage = std::int64_t{1} << kBits;
  struct Page {
    std::bitset<kPage> present;
    std::size_t count = 0;  // present entries; an emptied page is freed
    std::array<T, kPage> slots{};
  };

 public:
  OffsetTable() = default;
  OffsetTable(OffsetTable&& other) noexcept : pages_(std::move(other.pages_)), size_(std::exchange(other.size_, 0)) {
    other.cached_ = nullptr;
  }
  OffsetTable& operator=(OffsetTable&& other) noexcept {
    pages_ = std::move(other.pages_);
    size_ = std::exchange(other.size_, 0);
    cached_ = nullptr;
    other.cached_ = nullptr;
    return *this;
  }
  OffsetTable(const OffsetTable&) = delete;
  OffsetTable& operator=(const OffsetTable&) = delete;
  ~OffsetTable() = default;

  // The entry at `offset`, or nullptr.
  const T* find(std::int64_t offset) const {
    const Page* p = page(offset >> kBits);
    const auto i = slot(offset);
    return p != nullptr && p->present[i] ? &p->slots[i] : nullptr;
  }
  T* find(std::int64_t offset) { return const_cast<T*>(std::as_const(*this).find(offset)); }
  bool contains(std::int64_t offset) const { return find(offset) != nullptr; }

  // Inserts `value` at `offset` unless an entry is there; returns the entry and whether it is new.
  std::pair<T*, bool> emplace(std::int64_t offset, T value) {
    Page& p = page_for(offset >> kBits);
    const auto i = slot(offset);
    if (p.present[i]) return {&p.slots[i], false};
    p.present[i] = true;
    p.slots[i] = std::move(value);
    ++p.count;
    ++size_;
    return {&p.slots[i], true};
  }
  // Removes the entry at `offset`, if any; a page left empty is freed (so a table whose entries
  // come and go keeps pages only where entries remain). Returns whether there was one.
  bool erase(std::int64_t offset) {
    const std::int64_t number = offset >> kBits;
    Page* p = const_cast<Page*>(page(number));
    const auto i = slot(offset);
    if (p == nullptr || !p->present[i]) return false;
    p->present[i] = false;
    p->slots[i] = T{};
    --size_;
    if (--p->count == 0) {
      if (cached_ == p) cached_ = nullptr;
      // Kept as the spare (all absent), so that a table whose few entries keep coming and
      // going over one page does not allocate and clear a page each time.
      const auto it = pages_.find(number);
      spare_ = std::move(it->second);
      pages_.erase(it);
    }
    return true;
  }
  // The entry at `offset`, default-constructed if absent.
  T& operator[](std::int64_t offset) { return *emplace(offset, T{}).first; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The first present offset at or above `offset`.
  std::optional<std::int64_t> next_at_or_after(std::int64_t offset) const {
    for (auto it = pages_.lower_bound(offset >> kBits); it != pages_.end(); ++it) {
      const std::int64_t base = it->first << kBits;
      for (std::int64_t o = std::max(offset, base); o < base + kPage; ++o) {
        if (it->second->present[slot(o)]) return o;
      }
    }
    return std::nullopt;
  }

  // Calls f(offset, entry) for every present offset in [from, to), in offset order; stops early
  // when f returns false.
  template <class F>
  void for_each_in(std::int64_t from, std::int64_t to, F&& f) const {
    if (from >= to) return;
    for (auto it = pages_.lower_bound(from >> kBits); it != pages_.end() && (it->first << kBits) < to; ++it) {
      const std::int64_t base = it->first << kBits;
      const Page& p = *it->second;
      for (std::int64_t o = std::max(from, base); o < std::min(to, base + kPage); ++o) {
        if (p.present[slot(o)] && !f(o, p.slots[slot(o)])) return;
      }
    }
  }
  // The same from `from` to the end.
  template <class F>
  void for_each_from(std::int64_t from, F&& f) const {
    for_each_in(from, INT64_MAX, std::forward<F>(f));
  }

 private:
  static std::size_t slot(std::int64_t offset) { return static_cast<std::size_t>(offset & (kPage - 1)); }

  const Page* page(std::int64_t number) const {
    if (cached_ != nullptr && cached_number_ == number) return cached_;
    const auto it = pages_.find(number);
    if (it == pages_.end()) return nullptr;
    cached_number_ = number;
    cached_ = it->second.get();
    return cached_;
  }
  Page& page_for(std::int64_t number) {
    if (cached_ != nullptr && cached_number_ == number) return *cached_;
    auto& p = pages_[number];
    if (!p) p = spare_ ? std::move(spare_) : std::make_unique<Page>();
    cached_number_ = number;
    cached_ = p.get();
    return *p;
  }

  std::map<std::int64_t, std::unique_ptr<Page>> pages_;
  std::unique_ptr<Page> spare_;  // the last page emptied by erase, for the next new page
  std::size_t size_ = 0;
  mutable std::int64_t cached_number_ = 0;
  mutable Page* cached_ = nullptr;
};

// A set of offsets: pages of 4,096 bits, one bit per offset, found as OffsetTable finds pages
// (the last page touched is remembered).
class OffsetSet {
  static constexpr int kBits = 12;
  static constexpr std::int64_t kPage = std::int64_t{1} << kBits;
  using Page = std::bitset<kPage>;

 public:
  OffsetSet() = default;
  OffsetSet(OffsetSet&& other) noexcept : pages_(std::move(other.pages_)), size_(std::exchange(other.size_, 0)) {
    other.cached_ = nullptr;
  }
  OffsetSet& operator=(OffsetSet&& other) noexcept {
    pages_ = std::move(other.pages_);
    size_ = std::exchange(other.size_, 0);
    cached_ = nullptr;
    other.cached_ = nullptr;
    return *this;
  }
  OffsetSet(const OffsetSet&) = delete;
  OffsetSet& operator=(const OffsetSet&) = delete;
  ~OffsetSet() = default;

  bool insert(std::int64_t offset) {
    Page& page = page_for(offset >> kBits);
    const auto bit = slot(offset);
    if (page.test(bit)) return false;
    page.set(bit);
    ++size_;
    return true;
  }
  bool contains(std::int64_t offset) const {
    const Page* page = find_page(offset >> kBits);
    return page != nullptr && page->test(slot(offset));
  }
  std::size_t size() const { return size_; }
  // The first offset in the set above `offset`.
  std::optional<std::int64_t> next_above(std::int64_t offset) const {
    if (offset == INT64_MAX) return std::nullopt;
    const std::int64_t from = offset + 1;
    for (auto it = pages_.lower_bound(from >> kBits); it != pages_.end(); ++it) {
      const std::int64_t base = it->first << kBits;
      for (std::int64_t o = std::max(from, base); o < base + kPage; ++o) {
        if (it->second->test(slot(o))) return o;
      }
    }
    return std::nullopt;
  }

 private:
  static std::size_t slot(std::int64_t offset) { return static_cast<std::size_t>(offset & (kPage - 1)); }
  const Page* find_page(std::int64_t number) const {
    if (cached_ != nullptr && cached_number_ == number) return cached_;
    const auto it = pages_.find(number);
    if (it == pages_.end()) return nullptr;
    cached_number_ = number;
    cached_ = it->second.get();
    return cached_;
  }
  Page& page_for(std::int64_t number) {
    if (cached_ != nullptr && cached_number_ == number) return *cached_;
    auto& p = pages_[number];
    if (!p) p = std::make_unique<Page>();
    cached_number_ = number;
    cached_ = p.get();
    return *p;
  }

  std::map<std::int64_t, std::unique_ptr<Page>> pages_;
  std::size_t size_ = 0;
  mutable std::int64_t cached_number_ = 0;
  mutable Page* cached_ = nullptr;
};

// Value ids (uint64) as keys of an OffsetTable or OffsetSet: any id works, and a run's ids
// (1, 2, ...) are dense.
inline std::int64_t value_key(std::uint64_t value_id) { return static_cast<std::int64_t>(value_id); }

}  // namespace logsim::properties
