// The log-integrity checker: inconsistent offsets online, lost writes at the end.
#include "properties/log_checker.h"

#include <algorithm>

namespace logsim::properties {

LogChecker::Partition& LogChecker::partition(Id tp) {
  if (tp >= partitions_.size()) partitions_.resize(tp + std::size_t{1});
  return partitions_[tp];
}

void LogChecker::note(Partition& p, const HistoryEvent& e, const EventIds& ids, bool processed) {
  const std::int64_t offset = e.offset->value();
  auto [seen, fresh] = p.at.emplace(offset, Seen{e.value_id, e.index, ids.process, false, processed});
  if (fresh) return;
  if (processed) seen->processed = true;
  if (seen->value == e.value_id || seen->conflicted) return;
  seen->conflicted = true;
  Violation v = violation_at("inconsistent-offsets", e);
  v.members = {symbols().process(seen->process), e.process};
  v.explanation = symbols().where(ids.tp) + " offset " + std::to_string(offset) + " held value " +
                  std::to_string(seen->value) + " (event #" + std::to_string(seen->event) +
                  ") and then value " + std::to_string(e.value_id) +
                  ": one offset was given to two records, as when a new leader lacked records the old one "
                  "had acknowledged";
  report(std::move(v));
}

void LogChecker::add_pending(Partition& p, const Pending& pending) {
  // Acknowledgements mostly come in offset order: usually an append.
  if (p.head == p.pending.size() || p.pending.back().offset <= pending.offset) {
    p.pending.push_back(pending);
    return;
  }
  const auto at = std::upper_bound(p.pending.begin() + static_cast<std::ptrdiff_t>(p.head), p.pending.end(),
                                   pending.offset, [](std::int64_t o, const Pending& q) { return o < q.offset; });
  p.pending.insert(at, pending);
}

LogChecker::Showing LogChecker::showing(const HistoryEvent& e, const EventIds& ids, const Read& read) {
  return Showing{ids.process, ids.group, read.from, e.offset->value(), e.index, e.at};
}

void LogChecker::claim(Partition& p, const HistoryEvent& e, const EventIds& ids, Read& read) {
  show_again(p, e, ids, read);
  const auto begin = p.pending.begin() + static_cast<std::ptrdiff_t>(p.head);
  const auto lo = std::lower_bound(begin, p.pending.end(), read.from,
                                   [](const Pending& q, std::int64_t o) { return q.offset < o; });
  auto kept = lo;
  auto it = lo;
  const std::int64_t offset = e.offset->value();
  for (; it != p.pending.end() && it->offset <= offset; ++it) {
    Ack* ack = acks_.find(value_key(it->value));
    if (ack == nullptr || ack->number != it->number) continue;  // processed or acknowledged again
    if (e.index <= ack->event) {  // not after the acknowledgement (only out-of-order histories)
      *kept++ = *it;
      continue;
    }
    ack->showings.push_back(showing(e, ids, read));
    if (ids.group == kNoId) continue;  // final: a reader without a group cannot be excused
    // Other groups' reads may show it too: it moves to the shown list.
    const auto at = std::upper_bound(p.shown.begin(), p.shown.end(), it->offset,
                                     [](std::int64_t o, const Pending& q) { return o < q.offset; });
    p.shown.insert(at, *it);
  }
  if (kept == it) return;
  if (lo == begin && kept == lo) {
    p.head = static_cast<std::size_t>(it - p.pending.begin());
  } else {
    p.pending.erase(kept, it);
  }
  // Drop the spent front once it is most of the vector.
  if (p.head >= 1024 && 2 * p.head >= p.pending.size()) {
    p.pending.erase(p.pending.begin(), p.pending.begin() + static_cast<std::ptrdiff_t>(p.head));
    p.head = 0;
  }
}

// The acknowledgements some group's reader already passed: this read adds its group's first
// showing, looking at each offset once per read.
void LogChecker::show_again(Partition& p, const HistoryEvent& e, const EventIds& ids, Read& read) {
  const std::int64_t offset = e.offset->value();
  if (p.shown.empty() || offset <= read.looked) return;
  const std::int64_t from = std::max(read.from, read.looked + 1);
  read.looked = offset;
  auto lo = std::lower_bound(p.shown.begin(), p.shown.end(), from, [](const Pending& q, std::int64_t o) { return q.offset < o; });
  auto kept = lo;
  auto it = lo;
  for (; it != p.shown.end() && it->offset <= offset; ++it) {
    Ack* ack = acks_.find(value_key(it->value));
    if (ack == nullptr || ack->number != it->number) continue;  // processed or acknowledged again: dropped
    const bool again = std::any_of(ack->showings.begin(), ack->showings.end(),
                                   [&](const Showing& s) { return s.group == ids.group; });
    if (!again && e.index > ack->event) ack->showings.push_back(showing(e, ids, read));
    if (ids.group != kNoId || again) *kept++ = *it;  // a showing without a group is final
  }
  p.shown.erase(kept, it);
}

void LogChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  compaction_.observe(e, ids, symbols());
  txns_.observe(e, ids);
  switch (e.kind) {
    case OpKind::kAssign:
      if (ids.process < reads_.size()) reads_[ids.process].clear();
      return;
    case OpKind::kSeek:
      if (e.high_watermark && e.log_start_offset && *e.log_start_offset > *e.high_watermark) {
        const std::int64_t from = e.high_watermark->value(), to = e.log_start_offset->value();
        // The same answer seen by several consumers is one range (the first to report it).
        const bool known = std::any_of(deleted_above_hw_.begin(), deleted_above_hw_.end(), [&](const DeletedAboveHw& d) {
          return d.tp == ids.tp && d.from == from && d.to == to;
        });
        if (!known) deleted_above_hw_.push_back(DeletedAboveHw{ids.tp, from, to, e.index, e.at, ids.process});
      }
      if (ids.process >= reads_.size()) reads_.resize(ids.process + std::size_t{1});
      if (e.offset) reads_[ids.process][ids.tp] = Read{e.offset->value(), e.offset->value() - 1};
      else reads_[ids.process].erase(ids.tp);
      return;
    case OpKind::kCommitOk:
      if (e.offset && ids.group != kNoId) {
        const auto [committed, fresh] = committed_.try_emplace(pack(ids.group, ids.tp), e.offset->value());
        if (!fresh) *committed = std::max(*committed, e.offset->value());
      }
      return;
    case OpKind::kSendOk:
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (e.value_id == 0 || !e.offset) return;
  const std::int64_t offset = e.offset->value();
  Partition& p = partition(ids.tp);
  const std::int64_t value = value_key(e.value_id);
  if (e.kind == OpKind::kSendOk) {
    note(p, e, ids, false);
    const std::uint64_t number = ++acks_seen_;
    if (processed_.contains(value)) return;  // never reported: nothing to keep
    const auto [ack, fresh] = acks_.emplace(value, Ack{});
    const std::uint64_t order = fresh ? number : ack->order;  // a later acknowledgement keeps the first's place
    *ack = Ack{e.value_id, ids.tp, ids.key, ids.process, offset, e.index, e.at, order, number, {}};
    add_pending(p, Pending{offset, e.value_id, number});
    return;
  }
  if (processed_.insert(value)) acks_.erase(value);
  if (ids.process >= reads_.size()) reads_.resize(ids.process + std::size_t{1});
  Read& read = *reads_[ids.process].try_emplace(ids.tp, Read{offset, offset - 1}).first;
  claim(p, e, ids, read);
  note(p, e, ids, true);
}

void LogChecker::finish() {
  const Symbols& s = symbols();
  // In value order, as the reports have always come.
  std::vector<const Ack*> unprocessed;
  unprocessed.reserve(acks_.size());
  acks_.for_each_from(INT64_MIN, [&](std::int64_t, const Ack& a) {
    unprocessed.push_back(&a);
    return true;
  });
  std::sort(unprocessed.begin(), unprocessed.end(), [](const Ack* a, const Ack* b) { return a->value < b->value; });
  OffsetSet reported;  // values already reported as lost
  for (const Ack* ack : unprocessed) {
    const Showing* shown = judged(*ack);
    if (shown == nullptr) continue;  // not read through that far (unseen, not lost), or excused
    const std::int64_t offset = ack->offset;
    const std::string& acker = s.process(ack->process);
    const std::string& reader = s.process(shown->reader);
    Violation v = violation_of("lost-write", shown->event, shown->at, shown->reader, ack->tp, Offset(offset), ack->key);
    v.members = {acker, reader};
    v.explanation = "value " + std::to_string(ack->value) + " was acknowledged to " + acker + " at " + s.where(ack->tp) +
                    " offset " + std::to_string(offset) + " (event #" + std::to_string(ack->event) +
                    "), but no consumer ever processed it, although " + reader +
                    (shown->group == kNoId ? "" : " of group " + s.group(shown->group)) + " read that partition from offset " +
                    std::to_string(shown->read_from) + " to offset " + std::to_string(shown->offset) +
                    " after the acknowledgement";
    report(std::move(v));
    reported.insert(value_key(ack->value));
  }
  report_deleted_above_hw(unprocessed, reported);
}

const LogChecker::Showing* LogChecker::judged(const Ack& a) {
  if (txns_.excused(a.value)) return nullptr;  // an aborted (or maybe aborted) transaction's
  const Partition& p = partitions_[a.tp];
  const Seen* seen = p.at.find(a.offset);
  const bool nothing_there = seen == nullptr || !seen->processed;
  for (const Showing& shown : a.showings) {
    // A group member that read past a record nobody processed anywhere, in a group whose commits
    // then passed it, may have skipped it itself: lost-commit reports the group's loss.
    if (shown.group != kNoId && nothing_there) {
      const std::int64_t* committed = committed_.find(pack(shown.group, a.tp));
      if (committed != nullptr && *committed > a.offset) continue;
    }
    // Compaction may have removed it before the read passed it.
    if (nothing_there && compaction_.may_have_removed(a.tp, a.key, a.offset, shown.event, symbols())) continue;
    return &shown;
  }
  return nullptr;
}

void LogChecker::report_deleted_above_hw(const std::vector<const Ack*>& unprocessed, const OffsetSet& reported) {
  if (deleted_above_hw_.empty()) return;
  // In the order of the values' first acknowledgements.
  std::vector<const Ack*> acked = unprocessed;
  std::sort(acked.begin(), acked.end(), [](const Ack* a, const Ack* b) { return a->order < b->order; });
  const Symbols& s = symbols();
  // The ranges of each partition, in history order; one pass over the acknowledgements gives
  // each lost value to the first range that holds it.
  std::vector<std::vector<std::size_t>> ranges_of(partitions_.size());
  for (std::size_t i = 0; i < deleted_above_hw_.size(); ++i) {
    const Id tp = deleted_above_hw_[i].tp;
    if (tp >= ranges_of.size()) ranges_of.resize(tp + std::size_t{1});
    ranges_of[tp].push_back(i);
  }
  struct Lost {
    const Ack* first = nullptr;  // lowest offset
    std::int64_t count = 0;
  };
  std::vector<Lost> lost(deleted_above_hw_.size());
  for (const Ack* ack : acked) {
    const Ack& a = *ack;
    if (a.tp >= ranges_of.size() || ranges_of[a.tp].empty()) continue;
    if (reported.contains(value_key(a.value))) continue;
    for (const std::size_t i : ranges_of[a.tp]) {
      const DeletedAboveHw& gap = deleted_above_hw_[i];
      if (a.offset < gap.from || a.offset >= gap.to) continue;
      ++lost[i].count;
      if (lost[i].first == nullptr || a.offset < lost[i].first->offset) lost[i].first = &a;
      break;
    }
  }
  for (std::size_t i = 0; i < deleted_above_hw_.size(); ++i) {
    const DeletedAboveHw& gap = deleted_above_hw_[i];
    const Ack* first = lost[i].first;
    if (first == nullptr) continue;
    const bool seek_last = gap.event > first->event;
    Violation v = violation_of("lost-write", seek_last ? gap.event : first->event, seek_last ? gap.at : first->at,
                               seek_last ? gap.process : first->process, gap.tp, Offset(first->offset), first->key);
    const std::string& acker = s.process(first->process);
    const std::string& reader = s.process(gap.process);
    v.members = {acker, reader};
    v.explanation = "value " + std::to_string(first->value) + " was acknowledged to " + acker + " at " +
                    s.where(gap.tp) + " offset " + std::to_string(first->offset) + " (event #" +
                    std::to_string(first->event) + "), but " + reader + "'s fetch was answered with log start offset " +
                    std::to_string(gap.to) + " above high watermark " + std::to_string(gap.from) + " (event #" +
                    std::to_string(gap.event) + "): the leader deleted offsets " + std::to_string(gap.from) + " to " +
                    std::to_string(gap.to - 1) + " before they were committed, and " + std::to_string(lost[i].count) +
                    " acknowledged record(s) there were never processed";
    report(std::move(v));
  }
}

}  // namespace logsim::properties
