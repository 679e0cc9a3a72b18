// A hash map for lookups on hot paths (the checkers' per-event state, the simulator's timers):
// open addressing with linear probing in one array (no node per entry, no allocation once
// grown), deletion by backward shift (no tombstones), at most half full. Keys are small
// trivially copyable values (ids and pairs of ids); `Hash` gives a 64-bit hash, which the map
// mixes again, so a plain packing of the key's fields will do. The hash is a pure function of the key, never seeded: a history's lookups
// cost the same on every run. for_each visits entries in slot order, which depends only on the
// keys and the order they came in; a caller whose output depends on the visiting order sorts.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace logsim {

// A strong 64-bit finalizer (MurmurHash3's), for hashes of packed ids.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// The hash of an integer key: itself (FlatMap mixes it).
struct IntHash {
  template <class T>
  std::uint64_t operator()(T v) const noexcept {
    return static_cast<std::uint64_t>(v);
  }
};

template <class Key, class Value, class Hash = IntHash>
class FlatMap {
  static_assert(std::is_trivially_copyable_v<Key>, "FlatMap keys are small plain values");
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };

 public:
  Value* find(const Key& key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = next(i)) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  bool contains(const Key& key) const { return const_cast<FlatMap*>(this)->find(key) != nullptr; }

  // The entry of `key`, inserted with `value` if absent; and whether it was inserted.
  std::pair<Value*, bool> try_emplace(const Key& key, Value value = Value{}) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    for (; slots_[i].used; i = next(i)) {
      if (slots_[i].key == key) return {&slots_[i].value, false};
    }
    slots_[i].key = key;
    slots_[i].value = std::move(value);
    slots_[i].used = true;
    ++size_;
    return {&slots_[i].value, true};
  }
  Value& operator[](const Key& key) { return *try_emplace(key).first; }

  // Removes the entry of `key` and returns its value, or nullopt.
  std::optional<Value> take(const Key& key) {
    if (size_ == 0) return std::nullopt;
    std::size_t i = home(key);
    for (; slots_[i].key != key || !slots_[i].used; i = next(i)) {
      if (!slots_[i].used) return std::nullopt;
    }
    std::optional<Value> found(std::move(slots_[i].value));
    // Backward shift: move each later entry of the probe run whose home is not cyclically
    // within (i, j] into the gap, so that every entry stays reachable from its home.
    for (std::size_t j = next(i); slots_[j].used; j = next(j)) {
      const std::size_t k = home(slots_[j].key);
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i] = Slot{};
    --size_;
    return found;
  }
  bool erase(const Key& key) { return take(key).has_value(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Removes every entry (keeping the table's capacity).
  void clear() {
    if (size_ == 0) return;
    for (Slot& s : slots_) s = Slot{};
    size_ = 0;
  }

  // Calls f(key, value) for every entry, in slot order (see the header comment).
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

 private:
  std::size_t home(const Key& key) const { return static_cast<std::size_t>(mix64(Hash{}(key))) & (slots_.size() - 1); }
  std::size_t next(std::size_t i) const { return (i + 1) & (slots_.size() - 1); }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_ = std::vector<Slot>(old.empty() ? 16 : old.size() * 2);
    for (Slot& s : old) {
      if (!s.used) continue;
      std::size_t i = home(s.key);
      while (slots_[i].used) i = next(i);
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace logsim
