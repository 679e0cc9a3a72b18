// The simulated application of one consumer-group member: what a scenario's group members do.
//
// It subscribes, then loops: poll; process each record (each takes a time drawn from the
// group's processing range); commit as the group's strategy says; poll again (after
// poll_interval when a poll returned nothing). Processing happens while the client's
// heartbeats go on, as with Kafka's background heartbeat thread; a member that processes
// longer than max.poll.interval.ms is dropped from the group and rejoins at its next poll.
//
// Handler failures (the group's `failures`): an attempt fails when the record is poison or by
// chance (transient); the application then retries it after a backoff, forever (the partition
// blocks behind it), or up to `retries` times and then publishes it to the dead-letter topic
// and goes on, or logs it and goes on (skip). A record handled by dead-lettering or skipping
// is recorded as processed with a note saying so.
//
// History: every assignment change (with the generation), every record it finishes
// processing, every commit requested and its outcome — with the member, group and generation
// at the time. A graceful stop closes the consumer (commit, revoke, LeaveGroup).
//
// Exactly-once pipelines (the group's `exactly_once`): each poll's records are handled in one
// transaction of the member's own transactional producer (transactional.id: the member's
// name), which copies each record to the output topic as it is processed (send-invoke with the
// input's value id in source_value_id), then sends the batch's positions with the group
// metadata of the poll (KIP-447) and commits. The member records the transaction's txn-begin
// and outcome and its offsets' commit-invoke and commit-ok / commit-fail, all as its own
// process. After an abort (a send or the offsets failed, or a partition of the batch was
// revoked or lost meanwhile) the member goes back to the group's committed offsets (fetched once
// no transaction's offsets are pending), as Kafka's exactly-once example and Kafka Streams do;
// after an unknown outcome or a producer that failed for good (fenced, its transaction timed
// out) it first makes a new producer, whose InitProducerId ends the old transaction.
//
// Timeline `seek` steps: the member seeks at its next poll after the step is due (between
// batches, where a real application's loop would), so a member stuck retrying a record seeks
// only when it gets past it.
#pragma once

#include <deque>
#include <memory>
#include <set>

#include "engine/client/consumer.h"
#include "engine/timer_mux.h"
#include "engine/client/producer.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class GroupMemberApp final : public Node, private engine::RebalanceListener {
 public:
  GroupMemberApp(Env& env, const GroupSpec& spec, std::string name, RunContext& ctx, std::vector<NodeId> bootstrap,
                 const std::vector<TimelineStep>& timeline);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override;
  void on_stop() override;

 private:
  // engine::RebalanceListener
  void on_partitions_revoked(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_assigned(const std::vector<TopicPartition>& partitions) override;
  void on_partitions_lost(const std::vector<TopicPartition>& partitions) override;
  void on_commit(const engine::CommitEvent& event) override;
  void on_fatal(ErrorCode error) override;

  void poll();
  void process_next();
  void processed_front();
  void handled_front(const std::string& note);
  void dead_letter_front();
  void finish_batch();
  void commit_then(std::map<TopicPartition, Offset> offsets, void (GroupMemberApp::*next)());
  // Records the assignment the member has after a change (`gone`: partitions being revoked or
  // lost, which the client still lists while its callback runs).
  void record_assignment(const char* why, const std::vector<TopicPartition>& gone = {});
  Nanos processing_time();
  // Exactly-once pipelines (group_member_txn.cc).
  void make_producer();
  bool producer_ready();  // begin_transaction() can be called now (else poll again later)
  void begin_transaction(const std::vector<engine::ConsumerRecord>& records);
  void copy_front();      // sends the front record's copy in the transaction
  void end_transaction();
  void abort_transaction(ErrorCode why, const std::string& note);
  void transaction_ended(properties::OpKind outcome, ErrorCode error, const std::string& note);
  void record_txn_offsets(properties::OpKind kind, ErrorCode error);
  void back_to_committed(const char* why);
  void renew_producer();  // after an unknown outcome or a fatal error
  static constexpr std::uint64_t kPollTag = 1000;   // time to poll
  static constexpr std::uint64_t kRenewTag = 1002;  // time to renew_producer() (not from the producer's own callback)

  properties::HistoryEvent event(properties::OpKind kind) const;

  Env& env_;
  const GroupSpec& spec_;
  std::string name_;
  RunContext& ctx_;
  engine::TimerMux timers_;  // the node's, for its consumer and dead-letter producer
  engine::Consumer consumer_;
  std::unique_ptr<engine::Producer> dead_letters_;  // only with a dead-letter policy
  std::int32_t attempts_ = 0;                       // failed attempts on the front record
  std::deque<engine::ConsumerRecord> batch_;  // polled, not yet processed
  std::map<TopicPartition, Offset> batch_end_;  // the batch's positions (offset + 1)
  bool fatal_ = false;
  AppSteps<steps::Seek> steps_;                            // the seek steps aimed at this member
  std::vector<const steps::Seek*> seeks_;     // due, to do at the next poll
  // Exactly-once pipelines: the transactional producer and the open transaction.
  std::vector<NodeId> bootstrap_;
  std::unique_ptr<engine::Producer> txn_;
  bool announced_ = false;  // a txn-begin has named the transactional.id (initTransactions completed)
  bool txn_open_ = false;
  bool txn_revoked_ = false;  // a partition of the open transaction was revoked or lost
  std::set<TopicPartition> txn_partitions_;  // the open transaction's partitions
  std::map<TopicPartition, Offset> txn_offsets_;  // the offsets it sent (sendOffsetsToTransaction)
  engine::ConsumerGroupMetadata txn_group_;    // the group metadata at the poll that began it
  std::uint64_t txn_commit_id_ = 0;  // commit ids of the member's transactional offset commits
};

}  // namespace logsim::scenarios
