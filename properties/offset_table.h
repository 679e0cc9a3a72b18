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

// Pages by number, in number order, remembering the last one looked up (most lookups stay on
// one page), and keeping the last page released as a spare for the next new one (so a table
// whose few entries come and go over one page does not allocate and clear a page each time).
// A spare page is handed out as it was released: the caller empties a page before releasing it.
template <class Page>
class PageMap {
 public:
  using Map = std::map<std::int64_t, std::unique_ptr<Page>>;

  PageMap() = default;
  PageMap(PageMap&& other) noexcept : pages_(std::move(other.pages_)) { other.cached_ = nullptr; }
  PageMap& operator=(PageMap&& other) noexcept {
    pages_ = std::move(other.pages_);
    cached_ = nullptr;
    other.cached_ = nullptr;
    return *this;
  }
  PageMap(const PageMap&) = delete;
  PageMap& operator=(const PageMap&) = delete;
  ~PageMap() = default;

  // The page numbered `number`, or nullptr.
  const Page* find(std::int64_t number) const {
    if (cached_ != nullptr && cached_number_ == number) return cached_;
    const auto it = pages_.find(number);
    if (it == pages_.end()) return nullptr;
    cached_number_ = number;
    cached_ = it->second.get();
    return cached_;
  }
  // The page numbered `number`, made (or taken from the spare) if absent.
  Page& get(std::int64_t number) {
    if (cached_ != nullptr && cached_number_ == number) return *cached_;
    auto& p = pages_[number];
    if (!p) p = spare_ ? std::move(spare_) : std::make_unique<Page>();
    cached_number_ = number;
    cached_ = p.get();
    return *p;
  }
  // Removes the page numbered `number` (emptied by the caller), keeping it as the spare.
  void release(std::int64_t number) {
    const auto it = pages_.find(number);
    if (it == pages_.end()) return;
    if (cached_ == it->second.get()) cached_ = nullptr;
    spare_ = std::move(it->second);
    pages_.erase(it);
  }
  const Map& pages() const { return pages_; }

 private:
  Map pages_;
  std::unique_ptr<Page> spare_;
  mutable std::int64_t cached_number_ = 0;
  mutable Page* cached_ = nullptr;
};

template <class T>
class OffsetTable {
  static constexpr int kBits = 10;
  static constexpr std::int64_t kPage = std::int64_t{1} << kBits;
  struct Page {
    std::bitset<kPage> present;
    std::size_t count = 0;  // present entries; an emptied page is released
    std::array<T, kPage> slots{};
  };

 public:
  OffsetTable() = default;
  OffsetTable(OffsetTable&& other) noexcept : pages_(std::move(other.pages_)), size_(std::exchange(other.size_, 0)) {}
  OffsetTable& operator=(OffsetTable&& other) noexcept {
    pages_ = std::move(other.pages_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  OffsetTable(const OffsetTable&) = delete;
  OffsetTable& operator=(const OffsetTable&) = delete;
  ~OffsetTable() = default;

  // The entry at `offset`, or nullptr.
  const T* find(std::int64_t offset) const {
    const Page* p = pages_.find(offset >> kBits);
    const auto i = slot(offset);
    return p != nullptr && p->present[i] ? &p->slots[i] : nullptr;
  }
  T* find(std::int64_t offset) { return const_cast<T*>(std::as_const(*this).find(offset)); }
  bool contains(std::int64_t offset) const { return find(offset) != nullptr; }

  // Inserts `value` at `offset` unless an entry is there; returns the entry and whether it is new.
  std::pair<T*, bool> emplace(std::int64_t offset, T value) {
    Page& p = pages_.get(offset >> kBits);
    const auto i = slot(offset);
    if (p.present[i]) return {&p.slots[i], false};
    p.present[i] = true;
    p.slots[i] = std::move(value);
    ++p.count;
    ++size_;
    return {&p.slots[i], true};
  }
  // Removes the entry at `offset`, if any; a page left empty is released (so a table whose
  // entries come and go keeps pages only where entries remain). Returns whether there was one.
  bool erase(std::int64_t offset) {
    Page* p = const_cast<Page*>(pages_.find(offset >> kBits));
    const auto i = slot(offset);
    if (p == nullptr || !p->present[i]) return false;
    p->present[i] = false;
    p->slots[i] = T{};
    --size_;
    if (--p->count == 0) pages_.release(offset >> kBits);
    return true;
  }
  // The entry at `offset`, default-constructed if absent.
  T& operator[](std::int64_t offset) { return *emplace(offset, T{}).first; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The first present offset at or above `offset`.
  std::optional<std::int64_t> next_at_or_after(std::int64_t offset) const {
    for (auto it = pages_.pages().lower_bound(offset >> kBits); it != pages_.pages().end(); ++it) {
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
    const auto& pages = pages_.pages();
    for (auto it = pages.lower_bound(from >> kBits); it != pages.end() && (it->first << kBits) < to; ++it) {
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

  PageMap<Page> pages_;
  std::size_t size_ = 0;
};

// A set of offsets: pages of 4,096 bits, one bit per offset, kept as OffsetTable keeps pages.
class OffsetSet {
  static constexpr int kBits = 12;
  static constexpr std::int64_t kPage = std::int64_t{1} << kBits;
  using Page = std::bitset<kPage>;

 public:
  bool insert(std::int64_t offset) {
    Page& page = pages_.get(offset >> kBits);
    const auto bit = slot(offset);
    if (page.test(bit)) return false;
    page.set(bit);
    ++size_;
    return true;
  }
  bool contains(std::int64_t offset) const {
    const Page* page = pages_.find(offset >> kBits);
    return page != nullptr && page->test(slot(offset));
  }
  std::size_t size() const { return size_; }
  // The first offset in the set above `offset`.
  std::optional<std::int64_t> next_above(std::int64_t offset) const {
    if (offset == INT64_MAX) return std::nullopt;
    const std::int64_t from = offset + 1;
    for (auto it = pages_.pages().lower_bound(from >> kBits); it != pages_.pages().end(); ++it) {
      const std::int64_t base = it->first << kBits;
      for (std::int64_t o = std::max(from, base); o < base + kPage; ++o) {
        if (it->second->test(slot(o))) return o;
      }
    }
    return std::nullopt;
  }

 private:
  static std::size_t slot(std::int64_t offset) { return static_cast<std::size_t>(offset & (kPage - 1)); }

  PageMap<Page> pages_;
  std::size_t size_ = 0;
};

// Value ids (uint64) as keys of an OffsetTable or OffsetSet: any id works, and a run's ids
// (1, 2, ...) are dense.
inline std::int64_t value_key(std::uint64_t value_id) { return static_cast<std::int64_t>(value_id); }

}  // namespace logsim::properties
