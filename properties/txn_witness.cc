// Transactions as a history shows them (txn_witness.h).
#include "properties/txn_witness.h"

namespace logsim::properties {

TxnWitness::State TxnWitness::state(std::uint64_t value_id) const {
  if (!any_ || value_id == 0) return State::kNone;
  const Outcome* o = states_.find(value_key(value_id));
  return o == nullptr ? State::kNone : o->state;
}

bool TxnWitness::excused(std::uint64_t value_id) const {
  if (!any_ || value_id == 0) return false;
  const Outcome* o = states_.find(value_key(value_id));
  if (o == nullptr || o->state == State::kNone) return false;
  return o->state == State::kAborted || !committed_.contains(static_cast<std::int64_t>(o->event));
}

std::uint64_t TxnWitness::abort_event(std::uint64_t value_id) const {
  const Outcome* o = states_.find(value_key(value_id));
  return o == nullptr ? 0 : o->event;
}

const std::vector<std::uint64_t>& TxnWitness::open_values(Id process) const {
  static const std::vector<std::uint64_t> kNone;
  return process < open_.size() ? open_[process] : kNone;
}

void TxnWitness::observe(const HistoryEvent& e, const EventIds& ids) {
  if (((KindSet{1} << static_cast<unsigned>(e.kind)) & kKinds) == 0 || ids.process == kNoId) return;
  if ((e.kind == OpKind::kSendInvoke || e.kind == OpKind::kProcess) && !any_) return;  // no transaction yet
  if (ids.process >= open_.size()) {
    open_.resize(std::size_t{ids.process} + 1);
    in_txn_.resize(std::size_t{ids.process} + 1, false);
  }
  switch (e.kind) {
    case OpKind::kTxnBegin:
      end(ids.process, State::kOpen, e.index);  // a transaction left open: its outcome is unknown
      in_txn_[ids.process] = true;
      if (begun_.size() < open_.size()) begun_.resize(open_.size(), 0);
      begun_[ids.process] = e.index;
      any_ = true;
      return;
    case OpKind::kSendInvoke:
      if (!in_txn_[ids.process] || e.value_id == 0) return;
      open_[ids.process].push_back(e.value_id);
      *states_.emplace(value_key(e.value_id), Outcome{}).first = Outcome{State::kOpen, begun_[ids.process]};
      return;
    case OpKind::kProcess: {
      // A read_committed reader saw one of its values: the transaction committed, whatever its
      // producer was told, so all of its values are owed.
      if (!e.read_committed || e.value_id == 0) return;
      const Outcome* o = states_.find(value_key(e.value_id));
      if (o != nullptr && o->state == State::kOpen) committed_.insert(static_cast<std::int64_t>(o->event));
      return;
    }
    case OpKind::kTxnCommit:
      for (const std::uint64_t v : open_[ids.process]) states_.erase(value_key(v));
      end(ids.process, State::kNone, e.index);
      return;
    case OpKind::kTxnAbort:
      end(ids.process, State::kAborted, e.index);
      return;
    case OpKind::kTxnInfo:
      end(ids.process, State::kOpen, e.index);
      return;
    default:
      return;
  }
}

// Ends the process's open transaction, leaving its values in state `to` (kNone: already erased).
void TxnWitness::end(Id process, State to, std::uint64_t event) {
  if (to == State::kAborted) {
    for (const std::uint64_t v : open_[process]) *states_.emplace(value_key(v), Outcome{}).first = Outcome{to, event};
  }
  open_[process].clear();
  in_txn_[process] = false;
}

}  // namespace logsim::properties
