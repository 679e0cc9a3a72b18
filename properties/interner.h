// Strings to small dense ids, in order of first appearance (deterministic: no std::hash,
// nothing seeded). Used by the history to keep each event's strings as ids, and by the
// checkers to key their state on integers instead of strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace logsim::properties {

using Id = std::uint32_t;
inline constexpr Id kNoId = UINT32_MAX;  // no group (manual assignment), no key (a null key)

// Strings of one kind to dense ids.
class Interner {
 public:
  Id intern(std::string_view name);
  const std::string& name(Id id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  // A name's hash, length and first 16 bytes (zero-padded): equal for equal names, and for
  // names of up to 16 bytes equal only for equal names, so those compare without memcmp.
  struct Probe {
    std::uint64_t hash = 0;
    std::uint64_t head[2] = {0, 0};
    std::uint32_t size = 0;
  };
  static Probe probe(std::string_view name);
  // Open addressing over probes, at most half full: a lookup hashes the name once and compares
  // in one array; only names longer than 16 bytes are compared with their stored string.
  struct Slot {
    Probe probe;
    Id id = kNoId;  // kNoId: empty
  };
  void grow();
  std::vector<Slot> slots_;
  std::vector<std::string> names_;
};

}  // namespace logsim::properties
