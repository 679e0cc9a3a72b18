// The poll-skip checker: holes in a consumer's run of offsets, judged at the end against the
// acknowledged sends.
#include "properties/poll_skip_checker.h"

#include <algorithm>
#include <tuple>

namespace logsim::properties {
namespace {

// An acknowledgement of a key to the partition: what compaction could supersede with.
struct KeyedAck {
  Id key;
  std::int64_t offset;
  std::uint64_t invoked;
};

// The acknowledgements of one partition with a hole, prepared at the end: by offset (history
// order among those of one offset, so the first of each offset is the one that counts), and
// those with a key by (key, offset) with the earliest invoke of every suffix of each key.
struct Prepared {
  std::vector<std::pair<std::int64_t, std::size_t>> by_offset;  // (offset, index in the partition's acks)
  std::vector<KeyedAck> keyed;
  std::vector<std::uint64_t> suffix_min_invoke;  // over the rest of the same key
};

}  // namespace

bool PollSkipChecker::may_compact(Id topic) const {
  if (!options_.compacted_topics) return true;
  return (topic < altered_to_compact_.size() && altered_to_compact_[topic]) ||
         options_.compacted_topics->contains(symbols().topic(topic));
}

void PollSkipChecker::note_uncertain(Id topic, Id key, std::uint64_t invoked) {
  if (key == kNoId) return;  // a record without a key supersedes nothing
  uncertain_.emplace_back(pack(topic, key), invoked);
}

void PollSkipChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  switch (e.kind) {
    case OpKind::kAssign:
      if (ids.process < runs_.size()) runs_[ids.process].clear();
      return;
    case OpKind::kSeek:
      if (ids.process < runs_.size()) {
        auto& runs = runs_[ids.process];
        const auto it = std::lower_bound(runs.begin(), runs.end(), ids.tp, [](const Run& r, Id tp) { return r.tp < tp; });
        if (it != runs.end() && it->tp == ids.tp) it->offset = kNoRun;
      }
      return;
    case OpKind::kAdmin:
      // alter-config notes list the configs set ("... cleanup.policy=compact: done").
      if (e.error == "NONE" || e.error.empty()) {
        const auto at = e.note.find("cleanup.policy=");
        if (at != std::string::npos && e.note.find("compact", at) != std::string::npos) {
          if (ids.topic >= altered_to_compact_.size()) altered_to_compact_.resize(ids.topic + 1);
          altered_to_compact_[ids.topic] = true;
        }
      }
      return;
    case OpKind::kSendInvoke:
      in_flight_[Send{ids.process, e.value_id}] = Invoke{ids.topic, ids.key, e.index};
      return;
    case OpKind::kSendOk: {
      const auto invoke = in_flight_.take(Send{ids.process, e.value_id});
      if (!e.offset) return;
      if (ids.tp >= acks_.size()) acks_.resize(ids.tp + 1);
      acks_[ids.tp].push_back(Ack{e.offset->value(), e.index, invoke ? invoke->event : 0, e.value_id, ids.key, ids.process});
      return;
    }
    case OpKind::kSendFail:
      in_flight_.take(Send{ids.process, e.value_id});
      return;
    case OpKind::kSendInfo: {
      // It may be in the log, at an offset nobody knows: it may supersede any record of its key.
      const auto invoke = in_flight_.take(Send{ids.process, e.value_id});
      note_uncertain(ids.topic, ids.key, invoke ? invoke->event : 0);
      return;
    }
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (!e.offset) return;
  const std::int64_t offset = e.offset->value();
  if (ids.process >= runs_.size()) runs_.resize(ids.process + 1);
  auto& runs = runs_[ids.process];
  auto it = std::lower_bound(runs.begin(), runs.end(), ids.tp, [](const Run& r, Id tp) { return r.tp < tp; });
  if (it == runs.end() || it->tp != ids.tp) {
    runs.insert(it, Run{ids.tp, offset, e.index});  // the start of a run
    return;
  }
  if (it->offset != kNoRun && offset > it->offset + 1) {
    holes_.push_back(Hole{ids.process, ids.tp, it->offset + 1, offset, e.index, e.at, it->event});
  }
  // At or below the last offset: nonmonotonic-poll (the order checker's); the run goes on from
  // here. After a seek (kNoRun) this is the start of a new run.
  it->offset = offset;
  it->event = e.index;
}

void PollSkipChecker::finish() {
  if (holes_.empty()) return;
  in_flight_.for_each([this](const Send&, const Invoke& i) { note_uncertain(i.topic, i.key, i.event); });  // never ended
  // The earliest invoke per (topic, key): sorted, the first of each key.
  std::sort(uncertain_.begin(), uncertain_.end());
  uncertain_.erase(std::unique(uncertain_.begin(), uncertain_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                   uncertain_.end());
  const auto uncertain_before = [this](Id topic, Id key, std::uint64_t shown_at) {
    const std::uint64_t k = pack(topic, key);
    const auto it = std::lower_bound(uncertain_.begin(), uncertain_.end(), k, [](const auto& u, std::uint64_t x) { return u.first < x; });
    return it != uncertain_.end() && it->first == k && it->second < shown_at;
  };

  std::vector<std::optional<Prepared>> prepared(acks_.size());
  const auto prepare = [&](Id tp) -> const Prepared& {
    auto& slot = prepared[tp];
    if (slot) return *slot;
    Prepared& p = slot.emplace();
    const auto& acks = acks_[tp];
    p.by_offset.reserve(acks.size());
    for (std::size_t i = 0; i < acks.size(); ++i) {
      p.by_offset.emplace_back(acks[i].offset, i);
      if (acks[i].key != kNoId) p.keyed.push_back(KeyedAck{acks[i].key, acks[i].offset, acks[i].invoked});
    }
    std::sort(p.by_offset.begin(), p.by_offset.end());  // (offset, history order): unique
    std::sort(p.keyed.begin(), p.keyed.end(), [](const KeyedAck& a, const KeyedAck& b) {
      return std::tie(a.key, a.offset, a.invoked) < std::tie(b.key, b.offset, b.invoked);
    });
    p.suffix_min_invoke.assign(p.keyed.size(), 0);
    std::uint64_t min = UINT64_MAX;
    for (std::size_t i = p.keyed.size(); i-- > 0;) {
      if (i + 1 == p.keyed.size() || p.keyed[i + 1].key != p.keyed[i].key) min = UINT64_MAX;
      min = std::min(min, p.keyed[i].invoked);
      p.suffix_min_invoke[i] = min;
    }
    return p;
  };

  for (const Hole& h : holes_) {
    if (h.tp >= acks_.size() || acks_[h.tp].empty()) continue;
    const Id topic = symbols().topic_of(h.tp);
    const bool compact = may_compact(topic);
    const Prepared& p = prepare(h.tp);
    const auto& acks = acks_[h.tp];
    // Compaction could have removed the record before the fetch that passed it (see the header).
    const auto excused = [&](const Ack& ack) {
      if (!compact) return false;
      if (ack.value_id == 0) return true;  // no value id: perhaps a tombstone, which compaction removes in time
      if (ack.key == kNoId) return false;  // compaction keeps records without a key
      if (uncertain_before(topic, ack.key, h.event)) return true;
      // The first acknowledgement of the key above the offset.
      const auto later = std::upper_bound(p.keyed.begin(), p.keyed.end(), std::pair{ack.key, ack.offset},
                                          [](const std::pair<Id, std::int64_t>& x, const KeyedAck& k) {
                                            return x.first < k.key || (x.first == k.key && x.second < k.offset);
                                          });
      if (later == p.keyed.end() || later->key != ack.key) return false;
      return p.suffix_min_invoke[static_cast<std::size_t>(later - p.keyed.begin())] < h.event;
    };
    std::int64_t skipped = 0;
    const Ack* first = nullptr;
    auto it = std::lower_bound(p.by_offset.begin(), p.by_offset.end(), std::pair<std::int64_t, std::size_t>{h.from, 0});
    for (; it != p.by_offset.end() && it->first < h.to; ++it) {
      if (it != p.by_offset.begin() && std::prev(it)->first == it->first) continue;  // only the first acknowledgement counts
      const Ack& ack = acks[it->second];
      if (excused(ack)) continue;
      ++skipped;
      if (first == nullptr) first = &ack;
    }
    if (first == nullptr) continue;
    const Ack& ack = *first;
    const std::string& process = symbols().process(h.process);
    const std::string& acked_to = symbols().process(ack.process);
    Violation v = violation_of("poll-skip", h.event, h.at, h.process, h.tp, Offset(ack.offset), ack.key);
    if (ack.process != h.process) v.members.push_back(acked_to);
    v.explanation = process + " processed " + symbols().where(h.tp) + " offset " + std::to_string(h.to) + " (event #" +
                    std::to_string(h.event) + ") right after offset " + std::to_string(h.from - 1) + " (event #" +
                    std::to_string(h.previous_event) + ") within one assignment, with no seek in between, "
                    "skipping " + std::to_string(skipped) + " acknowledged record(s), the first at offset " +
                    std::to_string(ack.offset) + " (value " + std::to_string(ack.value_id) + ", acknowledged to " +
                    acked_to + " at event #" + std::to_string(ack.event) + ")" +
                    (compact ? ", which no later record of its key could have compacted away" : "");
    report(std::move(v));
  }
}

}  // namespace logsim::properties
