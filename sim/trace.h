// The trace: every delivered message, fired timer, completed fsync and injected fault, in the
// order the simulator ran them, folded into a 64-bit rolling hash.
//
// DESIGN.md rule 5: same (scenario, seed, build) => same hash. The hash is always kept; the
// entries themselves are kept only when recording is on (for --trace and for naming the first
// divergent event when --check-determinism finds two runs that differ).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/types.h"

namespace logsim::sim {

enum class TraceKind : std::uint8_t {
  kDeliver,   // a message reached its node
  kDrop,      // a message was dropped at delivery (link cut, node down)
  kTimer,     // a timer fired on a node
  kFsync,     // an fsync completed on a node
  kDisconnect,  // a node learned that a peer's process reset their connection
  kFault,     // a fault or lifecycle change was injected (crash, partition, ...)
  kAction,    // a scenario action ran (produce burst, reset, ...)
};

std::string_view trace_kind_name(TraceKind kind);

struct TraceEntry {
  std::uint64_t index = 0;  // position in the trace, from 0
  Nanos at = 0;
  TraceKind kind = TraceKind::kAction;
  std::int32_t node = -1;  // the node it happened on (-1: the world)
  std::int32_t peer = -1;  // the sender of a message
  std::uint64_t detail = 0;  // message digest, timer tag, fsync token, fault code
  std::string text;        // human-readable description (recorded entries only)
};

class Trace {
 public:
  explicit Trace(bool record) : record_(record) {}

  // Folds one event into the hash; keeps the entry when recording. `describe` is called only
  // when recording, so building descriptions costs nothing otherwise.
  template <typename Describe>
  void append(Nanos at, TraceKind kind, std::int32_t node, std::int32_t peer, std::uint64_t detail,
              Describe&& describe) {
    fold(at, kind, node, peer, detail);
    if (record_) entries_.push_back(TraceEntry{count_ - 1, at, kind, node, peer, detail, describe()});
  }

  std::uint64_t hash() const { return hash_; }
  std::uint64_t size() const { return count_; }
  bool recording() const { return record_; }
  const std::vector<TraceEntry>& entries() const { return entries_; }

 private:
  void fold(Nanos at, TraceKind kind, std::int32_t node, std::int32_t peer, std::uint64_t detail);

  bool record_;
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
  std::uint64_t count_ = 0;
  std::vector<TraceEntry> entries_;
};

// The first index at which two recorded traces differ (in any field the hash covers), or
// nothing when one is a prefix of the other and they have the same length.
std::optional<std::uint64_t> first_divergence(const Trace& a, const Trace& b);

// One line describing an entry, e.g. "#812 t=1.250000000s deliver node=2 from=5 Produce ...".
std::string format_entry(const TraceEntry& e);

}  // namespace logsim::sim
