// The trace's rolling hash and divergence search.
#include "sim/trace.h"

#include <algorithm>
#include <cstdio>

#include "engine/base/digest.h"

namespace logsim::sim {

std::string_view trace_kind_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::kDeliver: return "deliver";
    case TraceKind::kDrop: return "drop";
    case TraceKind::kTimer: return "timer";
    case TraceKind::kFsync: return "fsync";
    case TraceKind::kDisconnect: return "disconnect";
    case TraceKind::kFault: return "fault";
    case TraceKind::kAction: return "action";
  }
  return "?";
}

void Trace::fold(Nanos at, TraceKind kind, std::int32_t node, std::int32_t peer,
                 std::uint64_t detail) {
  // The hash is a chain: each step digests the previous hash with the event, so the order of
  // events matters as much as their content.
  Digest d;
  d.add(hash_).add(at).add(static_cast<std::uint64_t>(kind)).add(node).add(peer).add(detail);
  hash_ = d.value();
  ++count_;
}

static bool same_event(const TraceEntry& a, const TraceEntry& b) {
  return a.at == b.at && a.kind == b.kind && a.node == b.node && a.peer == b.peer &&
         a.detail == b.detail;
}

std::optional<std::uint64_t> first_divergence(const Trace& a, const Trace& b) {
  const auto& ea = a.entries();
  const auto& eb = b.entries();
  const std::size_t n = std::min(ea.size(), eb.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_event(ea[i], eb[i])) return i;
  }
  if (ea.size() != eb.size()) return n;
  return std::nullopt;
}

std::string format_entry(const TraceEntry& e) {
  char head[128];
  std::snprintf(head, sizeof head, "#%llu t=%lld.%09llds %s node=%d",
                static_cast<unsigned long long>(e.index), static_cast<long long>(e.at / kNanosPerSecond),
                static_cast<long long>(e.at % kNanosPerSecond),
                std::string(trace_kind_name(e.kind)).c_str(), e.node);
  std::string out = head;
  if (e.peer >= 0) out += " from=" + std::to_string(e.peer);
  if (!e.text.empty()) out += " " + e.text;
  return out;
}

}  // namespace logsim::sim
