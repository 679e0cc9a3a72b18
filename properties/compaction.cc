// What compaction may have removed (see the header).
#include "properties/compaction.h"

#include <algorithm>
#include <tuple>

namespace logsim::properties {

bool CompactionWitness::may_compact(Id topic, const Symbols& symbols) const {
  if (!compacted_topics_) return true;
  return (topic < altered_to_compact_.size() && altered_to_compact_[topic]) ||
         compacted_topics_->contains(symbols.topic(topic));
}

void CompactionWitness::note_uncertain(Id topic, Id key, std::uint64_t invoked) {
  if (key == kNoId) return;  // a record without a key supersedes nothing
  uncertain_.emplace_back(pack(topic, key), invoked);
}

void CompactionWitness::observe(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols) {
  switch (e.kind) {
    case OpKind::kAdmin:
      // alter-config notes list the configs set ("... cleanup.policy=compact: done").
      if (e.error == "NONE" || e.error.empty()) {
        const auto at = e.note.find("cleanup.policy=");
        if (at != std::string::npos && e.note.find("compact", at) != std::string::npos && ids.topic != kNoId) {
          if (ids.topic >= altered_to_compact_.size()) altered_to_compact_.resize(ids.topic + std::size_t{1});
          altered_to_compact_[ids.topic] = true;
        }
      }
      return;
    case OpKind::kSendInvoke:
      if (ids.key != kNoId && may_compact(ids.topic, symbols)) {
        in_flight_[Send{ids.process, e.value_id}] = Invoke{ids.topic, ids.key, e.index};
      }
      return;
    case OpKind::kSendOk: {
      const auto invoke = in_flight_.take(Send{ids.process, e.value_id});
      if (!e.offset || ids.key == kNoId || !may_compact(ids.topic, symbols)) return;
      if (ids.tp >= partitions_.size()) partitions_.resize(ids.tp + std::size_t{1});
      partitions_[ids.tp].keyed.push_back(KeyedAck{ids.key, e.offset->value(), invoke ? invoke->event : 0});
      return;
    }
    case OpKind::kSendFail:
      in_flight_.take(Send{ids.process, e.value_id});
      return;
    case OpKind::kSendInfo: {
      // It may be in the log, at an offset nobody knows: it may supersede any record of its key.
      const auto invoke = in_flight_.take(Send{ids.process, e.value_id});
      if (may_compact(ids.topic, symbols)) note_uncertain(ids.topic, ids.key, invoke ? invoke->event : 0);
      return;
    }
    default:
      return;
  }
}

void CompactionWitness::prepare() {
  prepared_ = true;
  in_flight_.for_each([this](const Send&, const Invoke& i) { note_uncertain(i.topic, i.key, i.event); });  // never ended
  in_flight_ = {};
  // The earliest invoke per (topic, key): sorted, the first of each key.
  std::sort(uncertain_.begin(), uncertain_.end());
  uncertain_.erase(std::unique(uncertain_.begin(), uncertain_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                   uncertain_.end());
}

bool CompactionWitness::may_have_removed(Id tp, Id key, std::int64_t offset, std::uint64_t before, const Symbols& symbols) {
  if (!may_compact(symbols.topic_of(tp), symbols)) return false;
  if (key == kNoId) return false;  // compaction keeps records without a key
  if (!prepared_) prepare();
  const std::uint64_t k = pack(symbols.topic_of(tp), key);
  const auto u = std::lower_bound(uncertain_.begin(), uncertain_.end(), k, [](const auto& x, std::uint64_t y) { return x.first < y; });
  if (u != uncertain_.end() && u->first == k && u->second < before) return true;
  if (tp >= partitions_.size()) return false;
  Partition& p = partitions_[tp];
  if (!p.prepared) {
    p.prepared = true;
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
  }
  // The first acknowledgement of the key above the offset, and the earliest invoke from there on.
  const auto later = std::upper_bound(p.keyed.begin(), p.keyed.end(), std::pair{key, offset},
                                      [](const std::pair<Id, std::int64_t>& x, const KeyedAck& a) {
                                        return x.first < a.key || (x.first == a.key && x.second < a.offset);
                                      });
  if (later == p.keyed.end() || later->key != key) return false;
  return p.suffix_min_invoke[static_cast<std::size_t>(later - p.keyed.begin())] < before;
}

}  // namespace logsim::properties
