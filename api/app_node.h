// The node that hosts a user's App (api/app.h) in place of logsim's own application: it owns
// the node's timers, the engine's producer and consumer (made when the App first asks), the
// App's own timers, and the history recording the wrappers promise. The runner builds one at
// each start and restart of the node (scenarios::AppNodeFactory), with a fresh App from the
// registered factory. Internal to api/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/app.h"
#include "api/store.h"
#include "engine/client/admin.h"
#include "engine/client/consumer.h"
#include "engine/client/group_admin.h"
#include "engine/client/producer.h"
#include "engine/timer_mux.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/runner.h"

namespace logsim::detail {

class AppNode final : public Node, private engine::RebalanceListener {
 public:
  AppNode(Env& env, const scenarios::AppSite& site, std::unique_ptr<App> app);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override;
  void on_fsync(std::uint64_t token) override;
  void on_stop() override;

  // What the wrappers use.
  Env& env() { return env_; }
  const scenarios::AppSite& site() const { return site_; }
  scenarios::RunContext& run() { return *site_.ctx; }
  engine::Producer& producer();
  // The producer, made transactional with `transactional_id` (precondition: not made yet).
  engine::Producer& transactional_producer(const std::string& transactional_id);
  // Transactions (app_transactions.cc): the Producer wrapper's calls, recorded.
  ErrorCode begin_transaction();
  void send_offsets_to_transaction(const std::map<TopicPartition, Offset>& offsets, CommitCallback done);
  void commit_transaction(CommitCallback done);
  void abort_transaction(CommitCallback done);
  engine::Consumer& consumer();
  bool has_consumer() const { return site_.group != nullptr; }
  Store& store();  // opened at the first call
  engine::AdminClient& admin();        // made at the first call
  engine::GroupAdmin& group_admin();   // made at the first call
  // An `admin` event by this node: `what` and its outcome (Kafka's error name and message, or
  // `message`, or "done").
  void record_admin(const std::string& topic, const std::string& group, const std::string& what, ErrorCode error,
                    const std::string& message);
  const std::vector<std::string>& topics() const { return topics_; }
  const std::string& group_id() const { return group_id_; }
  TimerId set_timer(Nanos delay, TimerCallback fn);
  void cancel_timer(TimerId id);
  properties::HistoryEvent event(properties::OpKind kind) const;
  void subscribe(std::vector<std::string> topics, RebalanceCallbacks callbacks);
  std::vector<ConsumedRecord> poll();
  // commitSync / commitAsync; no offsets: the consumer's positions.
  void commit(std::optional<std::map<TopicPartition, Offset>> offsets, bool sync, CommitCallback done);
  void close_consumer();
  // The run loop (Consumer::run_each_message / run_each_batch): each unit is one record, or
  // one partition's records of a poll.
  void run_loop(BatchHandler handler, bool per_record, RunConfig config);

 private:
  void loop_poll();
  void loop_next();
  void loop_done(std::uint64_t unit);
  // engine::RebalanceListener: recorded, then the App's callbacks.
  void on_partitions_revoked(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_assigned(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_lost(const std::vector<TopicPartition>& partitions) override;
  void on_commit(const engine::CommitEvent& event) override;
  void on_fatal(ErrorCode error) override;

  Env& env_;
  scenarios::AppSite site_;
  std::vector<std::string> topics_;
  std::string group_id_;
  engine::TimerMux timers_;  // the node's, for its clients
  std::unique_ptr<engine::Producer> producer_;
  std::unique_ptr<engine::Consumer> consumer_;
  std::unique_ptr<engine::AdminClient> admin_;
  std::unique_ptr<engine::GroupAdmin> group_admin_;
  RebalanceCallbacks rebalance_;
  bool closed_ = false;
  std::unique_ptr<Store> store_;
  struct RunLoop {
    BatchHandler handler;
    bool per_record = true;
    RunConfig config;
    std::vector<std::vector<ConsumedRecord>> units;  // the poll's, in order
    std::size_t next = 0;                            // the unit being handled
    std::uint64_t handed = 0;                        // units handed out so far (names each `done`)
    bool awaiting = false;                           // the last unit handed out is not yet done
  };
  std::optional<RunLoop> loop_;
  // Transactions: whether a txn-begin named the id since the producer was made (the first
  // does: it fences older incarnations), whether one is open, and the offsets sent to it, which
  // are recorded as the group's commit (commit_id from kTxnCommitIds up, apart from the
  // consumer's own) and made only if it commits (txn_offsets_: all of them so far).
  void transaction_ended(properties::OpKind outcome, ErrorCode error, const std::string& note);
  void record_txn_offsets(properties::OpKind kind, ErrorCode error, const engine::CommitEvent& offsets);
  static constexpr std::uint64_t kTxnCommitIds = std::uint64_t{1} << 40;
  std::string txn_id_;  // the producer's transactional.id (empty: none)
  bool txn_announced_ = false;
  bool txn_open_ = false;
  engine::CommitEvent txn_offsets_;
  std::map<TimerId, TimerCallback> app_timers_;  // the App's, armed on the Env (ids ascend: ordered)
  // The timeline's seek steps aimed at this member, and those due, carried out at the next poll.
  std::optional<scenarios::AppSteps<scenarios::steps::Seek>> seek_steps_;
  std::vector<const scenarios::steps::Seek*> seeks_due_;
  // Last, so that it goes first: the clients' callbacks into it never run once it is gone.
  AppContext context_;
  std::unique_ptr<App> app_;
};

// Builds the node of a registered App (the runner's AppNodeFactory for `factory`).
scenarios::AppNodeFactory app_node_factory(AppFactory factory);

}  // namespace logsim::detail
