// The simulated producer application: sends `count` records at `rate_per_sec` to one topic,
// with keys chosen by the workload, and records every send's invocation and outcome. Its
// timeline `produce` steps send bursts besides: `count` more records, all at once or at
// their own rate. A restarted producer goes on where it was, with the workload and with
// any burst it had begun.
//
// With a transactional.id it sends in transactions (`transactions`: so many records each, some
// aborted on purpose) and records each one's begin and outcome: txn-begin, then txn-commit,
// txn-abort (aborted on purpose, or a commit that failed and was aborted) or txn-info (the
// outcome is unknown: the producer failed for good). An abort on purpose comes once every send
// of the transaction has its outcome (as an application that flushes, then finds a reason to
// abort), so the aborted records are in the log for read_uncommitted readers to see. Sends due
// while a transaction ends wait for it. A restarted producer's InitProducerId ends its last incarnation's transaction.
#pragma once

#include <deque>
#include <utility>

#include "engine/client/producer.h"
#include "engine/timer_mux.h"
#include "engine/env/rng.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class ProducerApp final : public Node {
 public:
  ProducerApp(Env& env, const ProducerSpec& spec, RunContext& ctx, std::vector<NodeId> bootstrap,
              const std::vector<TimelineStep>& timeline);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override { producer_.on_disconnect(peer); }

 private:
  // Sends the next record: the workload's, or the one at `position` of a produce step's burst.
  void send_one(const steps::Produce* step, std::int64_t position);
  // Sends it now, or in the transaction (begun if none is open) once the last one has ended.
  void send(const steps::Produce* step, std::int64_t position);
  // Transactions: sends what is waiting, beginning and ending transactions as it goes.
  void pump();
  void end_transaction();
  void abort_transaction();  // on purpose
  void ended(properties::OpKind outcome, ErrorCode error, std::string note);
  bool more_to_send() const;
  // Sends what the burst of the produce step at this timeline index has left: one record and
  // the timer for the next at a rate, else all of them.
  void burst(std::size_t index);
  std::optional<std::string> choose_key(Rng& rng) const;
  static std::optional<ZipfDistribution> zipf_for(const KeySpec& keys);

  Env& env_;
  const ProducerSpec& spec_;
  RunContext& ctx_;
  engine::TimerMux timers_;  // the node's, for its client
  engine::Producer producer_;
  AppSteps<steps::Produce> steps_;  // the produce steps aimed at this producer
  std::optional<ZipfDistribution> zipf_;  // zipf keys' cumulative table
  TimerId tick_ = 0;
  // Transactions.
  std::deque<std::pair<const steps::Produce*, std::int64_t>> waiting_;  // sends for the next transaction
  bool open_ = false;      // a transaction is open
  bool ending_ = false;    // its commit or abort is under way
  bool announced_ = false; // a txn-begin has named the transactional.id (initTransactions completed)
  std::int64_t in_txn_ = 0;  // sends in the open transaction
  std::int64_t unanswered_ = 0;  // sends of it without an outcome yet
  bool abort_when_answered_ = false;  // an abort on purpose, once every send has its outcome
};

}  // namespace logsim::scenarios
