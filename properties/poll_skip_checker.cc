// The poll-skip checker: holes in a consumer's run of offsets, judged at the end against the
// acknowledged sends.
#include "properties/poll_skip_checker.h"

#include <algorithm>

namespace logsim::properties {
namespace {

std::string where(const std::string& topic, std::int32_t partition) { return topic + "/" + std::to_string(partition); }

}  // namespace

bool PollSkipChecker::may_compact(const std::string& topic) const {
  if (!options_.compacted_topics) return true;
  return options_.compacted_topics->contains(topic) || altered_to_compact_.contains(topic);
}

void PollSkipChecker::note_uncertain(const std::string& topic, const std::optional<std::string>& key, std::uint64_t invoked) {
  if (!key) return;  // a record without a key supersedes nothing
  auto [it, fresh] = uncertain_.emplace(TopicKey{topic, *key}, invoked);
  if (!fresh) it->second = std::min(it->second, invoked);
}

void PollSkipChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  switch (e.kind) {
    case OpKind::kAssign: {
      auto it = last_.lower_bound(RunKey{e.process, "", INT32_MIN});
      while (it != last_.end() && std::get<0>(it->first) == e.process) it = last_.erase(it);
      return;
    }
    case OpKind::kSeek:
      last_.erase(RunKey{e.process, e.topic, e.partition});
      return;
    case OpKind::kAdmin:
      // alter-config notes list the configs set ("... cleanup.policy=compact: done").
      if (e.error == "NONE" || e.error.empty()) {
        const auto at = e.note.find("cleanup.policy=");
        if (at != std::string::npos && e.note.find("compact", at) != std::string::npos) altered_to_compact_.insert(e.topic);
      }
      return;
    case OpKind::kSendInvoke:
      in_flight_[{e.process, e.value_id}] = Invoke{e.index, e.topic, e.key};
      return;
    case OpKind::kSendOk: {
      std::uint64_t invoked = 0;
      if (auto it = in_flight_.find({e.process, e.value_id}); it != in_flight_.end()) {
        invoked = it->second.event;
        in_flight_.erase(it);
      }
      if (e.offset < 0) return;
      acks_[{e.topic, e.partition}].emplace(e.offset, Ack{e.index, invoked, e.value_id, e.key, e.process});
      if (e.key) keyed_[{e.topic, e.partition, *e.key}].by_offset.emplace_back(e.offset, invoked);
      return;
    }
    case OpKind::kSendFail:
      in_flight_.erase({e.process, e.value_id});
      return;
    case OpKind::kSendInfo: {
      // It may be in the log, at an offset nobody knows: it may supersede any record of its key.
      auto it = in_flight_.find({e.process, e.value_id});
      note_uncertain(e.topic, e.key, it == in_flight_.end() ? 0 : it->second.event);
      if (it != in_flight_.end()) in_flight_.erase(it);
      return;
    }
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (e.offset < 0) return;
  const RunKey key{e.process, e.topic, e.partition};
  auto [it, fresh] = last_.emplace(key, Last{e.offset, e.index});
  if (fresh) return;  // the start of a run
  if (e.offset > it->second.offset + 1) {
    holes_.push_back(Hole{e.process, e.topic, e.partition, it->second.offset + 1, e.offset, e.index, e.at, it->second.event});
  }
  // At or below the last offset: nonmonotonic-poll (the order checker's); the run goes on from here.
  it->second = Last{e.offset, e.index};
}

bool PollSkipChecker::excused(const std::string& topic, std::int32_t partition, std::int64_t offset, const Ack& ack,
                              std::uint64_t shown_at) const {
  if (!may_compact(topic)) return false;
  if (ack.value_id == 0) return true;  // no value id: perhaps a tombstone, which compaction removes in time
  if (!ack.key) return false;          // compaction keeps records without a key
  if (auto u = uncertain_.find({topic, *ack.key}); u != uncertain_.end() && u->second < shown_at) return true;
  const auto k = keyed_.find({topic, partition, *ack.key});
  if (k == keyed_.end()) return false;
  const auto& by_offset = k->second.by_offset;
  const auto later = std::upper_bound(by_offset.begin(), by_offset.end(), offset,
                                      [](std::int64_t o, const std::pair<std::int64_t, std::uint64_t>& x) { return o < x.first; });
  if (later == by_offset.end()) return false;
  return k->second.suffix_min_invoke[static_cast<std::size_t>(later - by_offset.begin())] < shown_at;
}

void PollSkipChecker::finish() {
  if (holes_.empty()) return;
  for (const auto& [pv, invoke] : in_flight_) note_uncertain(invoke.topic, invoke.key, invoke.event);  // never ended
  for (auto& [k, acks] : keyed_) {
    auto& v = acks.by_offset;
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    acks.suffix_min_invoke.assign(v.size(), 0);
    std::uint64_t min = UINT64_MAX;
    for (std::size_t i = v.size(); i-- > 0;) {
      min = std::min(min, v[i].second);
      acks.suffix_min_invoke[i] = min;
    }
  }
  for (const Hole& h : holes_) {
    const auto acks = acks_.find({h.topic, h.partition});
    if (acks == acks_.end()) continue;
    std::int64_t skipped = 0;
    const std::pair<const std::int64_t, Ack>* first = nullptr;
    for (auto it = acks->second.lower_bound(h.from); it != acks->second.end() && it->first < h.to; ++it) {
      if (excused(h.topic, h.partition, it->first, it->second, h.event)) continue;
      ++skipped;
      if (first == nullptr) first = &*it;
    }
    if (first == nullptr) continue;
    const Ack& ack = first->second;
    Violation v;
    v.anomaly = "poll-skip";
    v.first_event = h.event;
    v.at = h.at;
    v.process = h.process;
    v.topic = h.topic;
    v.partition = h.partition;
    v.offset = first->first;
    v.key = ack.key;
    v.members = {h.process};
    if (ack.process != h.process) v.members.push_back(ack.process);
    v.explanation = h.process + " processed " + where(h.topic, h.partition) + " offset " + std::to_string(h.to) +
                    " (event #" + std::to_string(h.event) + ") right after offset " + std::to_string(h.from - 1) +
                    " (event #" + std::to_string(h.previous_event) + ") within one assignment, with no seek in between, "
                    "skipping " + std::to_string(skipped) + " acknowledged record(s), the first at offset " +
                    std::to_string(first->first) + " (value " + std::to_string(ack.value_id) + ", acknowledged to " +
                    ack.process + " at event #" + std::to_string(ack.event) + ")" +
                    (may_compact(h.topic) ? ", which no later record of its key could have compacted away" : "");
    report(std::move(v));
  }
}

}  // namespace logsim::properties
