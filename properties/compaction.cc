// What compaction may have removed (see the header).
#include "properties/compaction.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <string_view>
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

namespace {
constexpr std::int64_t kDefaultDeleteRetentionMs = 86'400'000;  // Kafka's delete.retention.ms, a day

// N of "name=N" in an admin note, or -1 when the note does not set it.
std::int64_t config_in_note(std::string_view note, std::string_view name) {
  const auto at = note.find(name);
  if (at == std::string_view::npos) return -1;
  std::int64_t value = -1;
  const char* begin = note.data() + at + name.size();
  const auto [end, ec] = std::from_chars(begin, note.data() + note.size(), value);
  return ec == std::errc() && value >= 0 ? value : -1;
}
}  // namespace

Nanos CompactionWitness::delete_retention(Id topic) const {
  const std::int64_t ms =
      topic < delete_retention_ms_.size() && delete_retention_ms_[topic] >= 0 ? delete_retention_ms_[topic] : kDefaultDeleteRetentionMs;
  return ms > INT64_MAX / 1'000'000 ? INT64_MAX : ms * 1'000'000;
}

void CompactionWitness::note_admin(const HistoryEvent& e, const EventIds& ids) {
  // Notes list the configs set ("alter-config orders cleanup.policy=compact delete.retention.ms=100: done").
  if (!(e.error == "NONE" || e.error.empty()) || ids.topic == kNoId) return;
  const auto at = e.note.find("cleanup.policy=");
  if (at != std::string::npos && e.note.find("compact", at) != std::string::npos) {
    if (ids.topic >= altered_to_compact_.size()) altered_to_compact_.resize(ids.topic + std::size_t{1});
    altered_to_compact_[ids.topic] = true;
  }
  const std::int64_t ms = config_in_note(e.note, "delete.retention.ms=");
  if (ms < 0) return;
  if (ids.topic >= delete_retention_ms_.size()) delete_retention_ms_.resize(ids.topic + std::size_t{1}, -1);
  std::int64_t& least = delete_retention_ms_[ids.topic];
  if (least >= 0 && least <= ms) return;
  least = ms;
  // The topic's tombstones may go sooner now.
  for (Tombstone& t : tombstones_) {
    if (t.topic == ids.topic) t.gone_at = std::min(t.gone_at, t.invoked_at + delete_retention(ids.topic));
  }
  std::make_heap(tombstones_.begin(), tombstones_.end(), std::greater<>{});
}

void CompactionWitness::observe(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols) {
  note_event(e, ids, symbols);
  // The tombstones whose delete.retention.ms has passed by this event's time.
  while (!tombstones_.empty() && tombstones_.front().gone_at <= e.at) {
    std::pop_heap(tombstones_.begin(), tombstones_.end(), std::greater<>{});
    const Tombstone& t = tombstones_.back();
    partitions_[t.tp].keyed[t.ack].gone_from = e.index;
    tombstones_.pop_back();
  }
}

void CompactionWitness::note_event(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols) {
  switch (e.kind) {
    case OpKind::kAdmin:
      note_admin(e, ids);
      return;
    case OpKind::kSendInvoke:
      if (ids.key != kNoId && may_compact(ids.topic, symbols)) {
        in_flight_[Send{ids.process, e.value_id}] = Invoke{ids.topic, ids.key, e.index, e.at, e.tombstone};
      }
      return;
    case OpKind::kSendOk: {
      const auto invoke = in_flight_.take(Send{ids.process, e.value_id});
      if (!e.offset || ids.key == kNoId || !may_compact(ids.topic, symbols)) return;
      if (ids.tp >= partitions_.size()) partitions_.resize(ids.tp + std::size_t{1});
      auto& keyed = partitions_[ids.tp].keyed;
      keyed.push_back(KeyedAck{ids.key, e.offset->value(), invoke ? invoke->event : 0});
      if (invoke && invoke->tombstone) {
        const Nanos retention = delete_retention(ids.topic);
        const Nanos gone_at = invoke->at > INT64_MAX - retention ? INT64_MAX : invoke->at + retention;
        tombstones_.push_back(Tombstone{invoke->at, ids.topic, ids.tp, static_cast<std::uint32_t>(keyed.size() - 1), gone_at});
        std::push_heap(tombstones_.begin(), tombstones_.end(), std::greater<>{});
      }
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
  // A tombstone at the offset itself, past its delete.retention.ms.
  for (auto at = later; at != p.keyed.begin() && (at - 1)->key == key && (at - 1)->offset == offset; --at) {
    if ((at - 1)->gone_from < before) return true;
  }
  if (later == p.keyed.end() || later->key != key) return false;
  return p.suffix_min_invoke[static_cast<std::size_t>(later - p.keyed.begin())] < before;
}

}  // namespace logsim::properties
