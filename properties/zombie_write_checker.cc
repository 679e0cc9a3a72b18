// The zombie-write checker (zombie_write_checker.h).
#include "properties/zombie_write_checker.h"

namespace logsim::properties {

void ZombieWriteChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (ids.process == kNoId) return;
  if (ids.process >= fenced_.size()) fenced_.resize(std::size_t{ids.process} + 1, -1);
  switch (e.kind) {
    case OpKind::kTxnBegin: {
      if (!e.key || e.key->empty()) return;
      fenced_[ids.process] = -1;  // its own initTransactions: a new incarnation
      auto [it, fresh] = holder_.try_emplace(*e.key, ids.process, e.process);
      if (!fresh && it->second.first != ids.process) {
        fences_.push_back(Fence{e.index, e.process, *e.key});
        fenced_[it->second.first] = static_cast<std::int64_t>(fences_.size() - 1);
        it->second = {ids.process, e.process};
      }
      return;
    }
    case OpKind::kSendInvoke:
      if (fenced_[ids.process] >= 0 && e.value_id != 0) pending_[e.value_id] = static_cast<std::size_t>(fenced_[ids.process]);
      return;
    case OpKind::kSendFail:
      pending_.erase(e.value_id);
      return;
    case OpKind::kSendOk: {
      auto it = pending_.find(e.value_id);
      if (it == pending_.end()) return;
      const Fence& f = fences_[it->second];
      pending_.erase(it);
      Violation v = violation_at("zombie-write", e);
      v.members = {e.process, f.by};
      v.explanation = e.process + "'s send of value " + std::to_string(e.value_id) + " was acknowledged at " + e.topic +
                      "/" + std::to_string(History::packed(e.partition)) + " offset " +
                      std::to_string(History::packed(e.offset)) + ", but it was made after " + f.by +
                      " initialized transactional.id " + f.transactional_id + " (its txn-begin, event #" +
                      std::to_string(f.event) + "), which fences " + e.process +
                      ": a fenced producer's write was accepted";
      report(std::move(v));
      return;
    }
    default:
      return;
  }
}

}  // namespace logsim::properties
