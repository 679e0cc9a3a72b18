// A consumer-group member's poll–process–commit loop, its handler failures, and its history
// records.
#include "scenarios/apps/group_member_app.h"

#include <algorithm>
#include <utility>

#include "scenarios/apps/app_history.h"

namespace logsim::scenarios {
namespace {
constexpr std::uint64_t kProcessedTag = 1001;  // the attempt on the front record of the batch ended
}  // namespace

GroupMemberApp::GroupMemberApp(Env& env, const GroupSpec& spec, std::string name, RunContext& ctx,
                               std::vector<NodeId> bootstrap, const std::vector<TimelineStep>& timeline)
    : env_(env), spec_(spec), name_(std::move(name)), ctx_(ctx), timers_(env), consumer_(env, timers_, [&] {
        engine::ConsumerConfig c = spec.config;
        c.bootstrap_servers = bootstrap;
        c.group_id = spec.name;
        c.plants = ctx.plants;
        c.client_id = name_;
        c.enable_auto_commit = spec.commit == CommitStrategy::kAuto;
        if (spec.static_membership) c.group_instance_id = name_;
        return c;
      }()), steps_(timeline, name_), bootstrap_(bootstrap) {
  if (spec.failures.enabled() && spec.failures.on_failure == FailureSpec::Policy::kDeadLetter) {
    engine::ProducerConfig pc;
    pc.bootstrap_servers = std::move(bootstrap);
    dead_letters_ = std::make_unique<engine::Producer>(env, timers_, pc);
  }
}

void GroupMemberApp::on_start() {
  if (dead_letters_) dead_letters_->start();
  if (spec_.exactly_once) make_producer();
  consumer_.subscribe(spec_.topics, this);
  env_.set_timer(0, kPollTag);
  steps_.arm(env_, ctx_);
}

void GroupMemberApp::on_stop() {
  // A careful shutdown stops at a record boundary: the records of the last poll that were not
  // processed yet go back (a seek to the first of them per partition), so that the commits on
  // close cover only what was processed. Closing mid-batch without this commits the whole
  // batch, and its unprocessed records are lost to the group (found by logsim fuzz).
  std::map<TopicPartition, Offset> unprocessed;
  for (const auto& r : batch_) unprocessed.emplace(r.tp, r.record.offset);  // the first per partition
  const auto& assigned = consumer_.assignment();
  for (const auto& [tp, offset] : unprocessed) {
    if (std::find(assigned.begin(), assigned.end(), tp) != assigned.end()) consumer_.seek(tp, offset);
  }
  // The common pattern with commitAsync in the loop: a last commitSync of the position on close.
  if (spec_.commit == CommitStrategy::kAfterEachBatchAsync) {
    auto positions = consumer_.consumed();
    if (!positions.empty()) consumer_.commit(std::move(positions), true);
  }
  consumer_.close();
}

void GroupMemberApp::on_message(NodeId from, const Message& msg) {
  if (consumer_.on_message(from, msg)) return;
  if (txn_ && txn_->on_message(from, msg)) return;
  if (dead_letters_) dead_letters_->on_message(from, msg);
}

void GroupMemberApp::on_disconnect(NodeId peer) {
  consumer_.on_disconnect(peer);
  if (txn_) txn_->on_disconnect(peer);
  if (dead_letters_) dead_letters_->on_disconnect(peer);
}

void GroupMemberApp::on_timer(TimerId id, std::uint64_t tag) {
  if (timers_.on_timer(id, tag)) return;
  if (const auto fired = steps_.fired(tag, ctx_)) {
    seeks_.push_back(fired->step);
  } else if (tag == kPollTag) {
    poll();
  } else if (tag == kProcessedTag) {
    processed_front();
  } else if (tag == kRenewTag) {
    renew_producer();
  }
}

void GroupMemberApp::poll() {
  if (fatal_) return;
  if (txn_ && !producer_ready()) return;
  const EventMaker maker = [this](properties::OpKind kind) { return event(kind); };
  for (const steps::Seek* step : std::exchange(seeks_, {})) seek_step(consumer_, *step, env_.now(), maker, ctx_.history);
  auto records = consumer_.poll();
  record_moves(consumer_, maker, ctx_.history);
  if (records.empty()) {
    env_.set_timer(spec_.poll_interval, kPollTag);
    return;
  }
  record_poll(records.size(), maker, ctx_.history);
  if (txn_) begin_transaction(records);
  batch_end_.clear();
  for (auto& r : records) {
    batch_end_[r.tp] = r.record.offset + 1;
    batch_.push_back(std::move(r));
  }
  if (spec_.commit == CommitStrategy::kBeforeProcessing) {
    commit_then(batch_end_, &GroupMemberApp::process_next);
  } else {
    process_next();
  }
}

void GroupMemberApp::process_next() {
  attempts_ = 0;
  if (batch_.empty()) {
    finish_batch();
    return;
  }
  env_.set_timer(processing_time(), kProcessedTag);
}

// One attempt at the front record ended: it succeeded, or the handler failed.
void GroupMemberApp::processed_front() {
  const FailureSpec& f = spec_.failures;
  // The value id is parsed only when poison is possible (it costs a parse per record).
  const bool failed = (f.poison_probability > 0 &&
                       is_poison(parse_value_id(batch_.front().record.record), ctx_.poison_salt, f.poison_probability)) ||
                      (f.transient_probability > 0 && env_.rng().bernoulli(f.transient_probability));
  if (!failed) {
    handled_front("");
    return;
  }
  ++attempts_;
  if (f.on_failure == FailureSpec::Policy::kSkip) {
    handled_front("skipped: the handler failed");
  } else if (f.on_failure == FailureSpec::Policy::kDeadLetter && attempts_ > f.retries) {
    dead_letter_front();
  } else {
    env_.set_timer(f.retry_backoff + processing_time(), kProcessedTag);  // the same record again
  }
}

// The front record is done with: recorded as processed, committed if the strategy says so.
void GroupMemberApp::handled_front(const std::string& note) {
  const engine::ConsumerRecord& r = batch_.front();
  record_processed(r.tp, r.record.offset, r.record.record.key, parse_value_id(r.record.record), consumer_.read_committed(), note,
                   [this](properties::OpKind kind) { return event(kind); }, ctx_.history);
  if (txn_) copy_front();
  const TopicPartition tp = r.tp;
  const Offset next = r.record.offset + 1;
  batch_.pop_front();
  if (spec_.commit == CommitStrategy::kAfterEachMessage) {
    commit_then({{tp, next}}, &GroupMemberApp::process_next);
  } else {
    process_next();
  }
}

// Publishes the front record to the dead-letter topic (a new value id, the original's in a
// header) and goes on once the send has ended, whatever its outcome.
void GroupMemberApp::dead_letter_front() {
  const engine::ConsumerRecord& r = batch_.front();
  const std::string& topic = spec_.failures.dead_letter_topic;
  const std::uint64_t original = parse_value_id(r.record.record);
  const std::uint64_t value_id = ++ctx_.last_dead_letter_id;
  // The same key, size and tombstone-ness as the original.
  const std::optional<std::string>& value = r.record.record.value;
  Record record = make_record(r.record.record.key, value_id, value ? static_cast<std::int32_t>(value->size()) : 0, !value,
                              to_millis(env_.now()));
  record.headers.push_back(RecordHeader{"original", std::to_string(original)});
  const std::string sender = name_ + "/dead-letters";
  auto invoke = ctx_.event(properties::OpKind::kSendInvoke, sender);
  invoke.topic = topic;
  invoke.key = record.key;
  invoke.value_id = value_id;
  invoke.idempotent = true;
  invoke.tombstone = !value;
  invoke.note = "dead letter of value " + std::to_string(original);
  ctx_.history.append(invoke);
  const std::string note = "dead-lettered to " + topic + " as value " + std::to_string(value_id);
  dead_letters_->send(topic, std::move(record), std::nullopt, [this, sender, topic, key = invoke.key, value_id, note](const engine::SendResult& s) {
    ctx_.history.append(send_outcome_event(ctx_, sender, topic, key, value_id, s));
    handled_front(note);
  });
}

void GroupMemberApp::finish_batch() {
  if (spec_.commit == CommitStrategy::kInTransaction) return end_transaction();
  if (spec_.commit == CommitStrategy::kAfterEachBatchAsync && !batch_end_.empty()) {
    consumer_.commit(std::move(batch_end_), false);
    batch_end_.clear();
  }
  if (spec_.commit == CommitStrategy::kAfterEachBatch && !batch_end_.empty()) {
    auto offsets = std::move(batch_end_);
    batch_end_.clear();
    commit_then(std::move(offsets), &GroupMemberApp::poll);
    return;
  }
  poll();
}

// commitSync: the loop goes on when the commit has finished, whatever its outcome (a failed
// commit is logged by the application and processing continues, as is common).
void GroupMemberApp::commit_then(std::map<TopicPartition, Offset> offsets, void (GroupMemberApp::*next)()) {
  consumer_.commit(std::move(offsets), true, [this, next](ErrorCode) { (this->*next)(); });
}

Nanos GroupMemberApp::processing_time() {
  if (spec_.processing_max <= spec_.processing_min) return spec_.processing_min;
  const auto span = static_cast<std::uint64_t>(spec_.processing_max - spec_.processing_min) + 1;
  return spec_.processing_min + static_cast<Nanos>(env_.rng().uniform_u64(span));
}

properties::HistoryEvent GroupMemberApp::event(properties::OpKind kind) const {
  auto e = ctx_.event(kind, name_);
  e.group = spec_.name;
  e.generation = properties::known(GenerationId(consumer_.generation()));
  return e;
}

void GroupMemberApp::record_assignment(const char* why, const std::vector<TopicPartition>& gone) {
  scenarios::record_assignment(consumer_, why, gone, [this](properties::OpKind kind) { return event(kind); }, ctx_.history);
}

void GroupMemberApp::on_partitions_revoked(const std::vector<TopicPartition>& ps) {
  record_assignment("revoked", ps);
  for (const auto& tp : ps) txn_revoked_ = txn_revoked_ || (txn_open_ && txn_partitions_.contains(tp));
}
void GroupMemberApp::on_partitions_assigned(const std::vector<TopicPartition>&) { record_assignment("assigned"); }
void GroupMemberApp::on_partitions_lost(const std::vector<TopicPartition>& ps) {
  record_assignment("lost", ps);
  for (const auto& tp : ps) txn_revoked_ = txn_revoked_ || (txn_open_ && txn_partitions_.contains(tp));
}

void GroupMemberApp::on_commit(const engine::CommitEvent& c) {
  record_commit(c, [this](properties::OpKind kind) { return event(kind); }, ctx_.history);
}

void GroupMemberApp::on_fatal(ErrorCode error) {
  fatal_ = true;
  auto e = event(properties::OpKind::kFault);
  e.error = std::string(error_name(error));
  e.note = name_ + " stopped consuming: " + std::string(error_name(error));
  ctx_.history.append(std::move(e));
}

}  // namespace logsim::scenarios
