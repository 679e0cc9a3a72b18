// Interning of a history's repeated strings.
#include "properties/interner.h"

#include <cstring>

namespace logsim::properties {

// The probe of a name. Names of up to 16 bytes are held whole in `head`: from 8 bytes on, its
// first and its last 8 bytes (overlapping below 16); below 8, its first and last 4 bytes, or
// its first, middle and last byte (which cover every byte of such a name). The hash folds in
// the head and every further 8 bytes with one multiply each, then folds its high half into the
// low bits the table indexes by.
Interner::Probe Interner::probe(std::string_view name) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  const char* d = name.data();
  const std::size_t n = name.size();
  const auto load8 = [](const char* at) {
    std::uint64_t w;
    std::memcpy(&w, at, 8);
    return w;
  };
  const auto load4 = [](const char* at) {
    std::uint32_t w;
    std::memcpy(&w, at, 4);
    return std::uint64_t{w};
  };
  Probe p;
  p.size = static_cast<std::uint32_t>(n);
  if (n >= 8) {
    p.head[0] = load8(d);
    p.head[1] = load8(d + (n <= 16 ? n - 8 : 8));
  } else if (n >= 4) {
    p.head[0] = load4(d) | (load4(d + n - 4) << 32);
  } else if (n > 0) {
    const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(d[i])}; };
    p.head[0] = byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
  }
  std::uint64_t h = ((p.head[0] ^ (n * kMul)) * kMul) ^ p.head[1];
  h *= kMul;
  for (std::size_t i = 16; i < n; i += 8) {
    h = (h ^ (i + 8 <= n ? load8(d + i) : load8(d + n - 8))) * kMul;
  }
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdULL;
  p.hash = h ^ (h >> 29);
  return p;
}

void Interner::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNoId) continue;
    std::size_t i = static_cast<std::size_t>(s.probe.hash) & mask;
    while (slots_[i].id != kNoId) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Id Interner::intern(std::string_view name) {
  if (2 * (names_.size() + 1) > slots_.size()) grow();
  const Probe p = probe(name);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(p.hash) & mask;
  for (; slots_[i].id != kNoId; i = (i + 1) & mask) {
    const Probe& q = slots_[i].probe;
    if (q.hash == p.hash && q.size == p.size && q.head[0] == p.head[0] && q.head[1] == p.head[1] &&
        (p.size <= 16 || names_[slots_[i].id] == name)) {
      return slots_[i].id;
    }
  }
  const Id id = static_cast<Id>(names_.size());
  names_.emplace_back(name);
  slots_[i] = Slot{p, id};
  return id;
}

}  // namespace logsim::properties
