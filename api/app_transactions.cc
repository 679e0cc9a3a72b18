// A user's App's transactional producer (api/app.h, Producer's transactions): the engine's
// producer does the protocol; this records what it did as logsim's own transactional apps do
// (scenarios/apps/producer_app.cc, group_member_txn.cc), so the transaction checkers judge it.
#include "api/app_node.h"

namespace logsim {

namespace {

std::string error_text(ErrorCode e) { return e == ErrorCode::NONE ? "" : std::string(error_name(e)); }

}  // namespace

// ---- The wrapper

bool Producer::transactional() const { return node_.producer().transactional(); }

std::string Producer::transaction_state() const {
  const engine::Producer& p = node_.producer();
  return p.transactional() ? std::string(engine::txn_phase_name(p.txn_phase())) : "NONE";
}

std::string Producer::begin_transaction() { return error_text(node_.begin_transaction()); }

void Producer::send_offsets_to_transaction(const std::map<TopicPartition, Offset>& offsets, const Consumer&, CommitCallback done) {
  node_.send_offsets_to_transaction(offsets, std::move(done));
}

void Producer::commit_transaction(CommitCallback done) { node_.commit_transaction(std::move(done)); }
void Producer::abort_transaction(CommitCallback done) { node_.abort_transaction(std::move(done)); }

Producer& AppContext::transactional_producer(const std::string& transactional_id) {
  node_.transactional_producer(transactional_id);
  return producer_;
}

namespace detail {

engine::Producer& AppNode::transactional_producer(const std::string& transactional_id) {
  LOGSIM_ASSERT(!producer_, "application \"" + site_.app + "\" on " + site_.node +
                                " asked for a transactional producer after its producer was made (call "
                                "transactional_producer() before the first producer())");
  engine::ProducerConfig c = site_.producer != nullptr ? site_.producer->config : engine::ProducerConfig{};
  c.transactional_id = transactional_id;
  txn_id_ = transactional_id;
  c.enable_idempotence = true;
  c.acks = -1;
  c.bootstrap_servers = site_.bootstrap;
  producer_ = std::make_unique<engine::Producer>(env_, timers_, std::move(c));
  producer_->start();
  return *producer_;
}

ErrorCode AppNode::begin_transaction() {
  engine::Producer& p = producer();
  const ErrorCode e = p.begin_transaction();
  if (e != ErrorCode::NONE) return e;
  txn_open_ = true;
  auto b = site_.ctx->event(properties::OpKind::kTxnBegin, site_.node);
  b.note = "transactional.id=" + txn_id_;
  // The first transaction after initTransactions() names the id: it fences older incarnations.
  if (!txn_announced_) b.key = txn_id_;
  txn_announced_ = true;
  run().history.append(std::move(b));
  txn_offsets_ = engine::CommitEvent{};
  return e;
}

void AppNode::send_offsets_to_transaction(const std::map<TopicPartition, Offset>& offsets, CommitCallback done) {
  engine::Producer& p = producer();
  engine::ConsumerGroupMetadata group{group_id_, -1, "", std::nullopt};
  if (consumer_) {
    group = {group_id_, consumer_->generation(), consumer_->member_id(), site_.group->config.group_instance_id};
    if (site_.group->static_membership) group.group_instance_id = site_.node;  // as consumer() made it
  }
  std::vector<TxnOffsetCommitPartition> partitions;
  for (const auto& [tp, at] : offsets) partitions.push_back({tp, at, ""});
  if (txn_open_ && p.txn_phase() == engine::TxnPhase::kInTransaction && !group.group_id.empty()) {
    // One commit of the group per transaction: a second call adds to it.
    if (txn_offsets_.id == 0) txn_offsets_.id = kTxnCommitIds + run().history.size();
    txn_offsets_.generation = group.generation_id;
    engine::CommitEvent sent = txn_offsets_;
    sent.offsets = offsets;
    record_txn_offsets(properties::OpKind::kCommitInvoke, ErrorCode::NONE, sent);
    for (const auto& [tp, at] : offsets) txn_offsets_.offsets[tp] = at;
  }
  p.send_offsets_to_transaction(std::move(partitions), std::move(group), [this, done = std::move(done)](ErrorCode e) {
    if (done) set_timer(0, [done, e] { done(error_text(e)); });
  });
}

void AppNode::commit_transaction(CommitCallback done) {
  engine::Producer& p = producer();
  if (txn_open_ && p.txn_phase() == engine::TxnPhase::kInTransaction) {
    run().history.append(site_.ctx->event(properties::OpKind::kTxnCommitInvoke, site_.node));
  }
  p.commit_transaction([this, done = std::move(done)](ErrorCode e) {
    if (e == ErrorCode::NONE) {
      transaction_ended(properties::OpKind::kTxnCommit, e, "");
      record_txn_offsets(properties::OpKind::kCommitOk, e, txn_offsets_);
      txn_offsets_ = engine::CommitEvent{};
    } else if (e != ErrorCode::INVALID_TXN_STATE && producer_->txn_phase() != engine::TxnPhase::kAbortableError) {
      transaction_ended(properties::OpKind::kTxnInfo, e, "the commit failed");  // abortable: the App aborts it
    }
    if (done) set_timer(0, [done, e] { done(error_text(e)); });
  });
}

void AppNode::abort_transaction(CommitCallback done) {
  producer().abort_transaction([this, done = std::move(done)](ErrorCode e) {
    if (e == ErrorCode::NONE) {
      transaction_ended(properties::OpKind::kTxnAbort, e, "aborted by the application");
      record_txn_offsets(properties::OpKind::kCommitFail, ErrorCode::UNKNOWN_SERVER_ERROR, txn_offsets_);
      txn_offsets_ = engine::CommitEvent{};
    } else if (e != ErrorCode::INVALID_TXN_STATE) {
      transaction_ended(properties::OpKind::kTxnInfo, e, "the abort failed");
    }
    if (done) set_timer(0, [done, e] { done(error_text(e)); });
  });
}

void AppNode::transaction_ended(properties::OpKind outcome, ErrorCode error, const std::string& note) {
  if (!txn_open_) return;
  txn_open_ = false;
  auto e = site_.ctx->event(outcome, site_.node);
  if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
  e.note = note;
  run().history.append(std::move(e));
}

// The offsets sent to the open transaction, as a commit of the group by this node (one event
// per partition): invoked when sent, made when the transaction commits, failed when it aborts;
// a transaction of unknown outcome leaves them unknown.
void AppNode::record_txn_offsets(properties::OpKind kind, ErrorCode error, const engine::CommitEvent& c) {
  for (const auto& [tp, offset] : c.offsets) {
    auto e = event(kind);
    e.generation = properties::known(GenerationId(c.generation));
    e.topic = tp.topic;
    e.partition = tp.partition;
    e.offset = offset;
    e.commit_id = c.id;
    e.note = "in a transaction";
    if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
    run().history.append(std::move(e));
  }
}

}  // namespace detail
}  // namespace logsim
